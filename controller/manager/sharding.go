package manager

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// Sharding makes the Manager a member of a shard ring (package
// controller/sharding): the replicas of one controller-manager split the
// keys of their sharded controllers by namespace, each caching and
// reconciling only its own range, and every replica runs those
// controllers, not the leader alone. The Manager creates the Ring
// (Manager.Ring) and runs it on every replica, next to leader election;
// controllers built with the builder's Sharded, over informers registered
// with sharding.Shard, use it. Controllers that are not sharded stay
// behind leader election.
//
// The ring's member Lease is named Ring + "-" + Options.Lease.ID, in
// Options.Lease.Namespace, renewed on Options.Lease's timings.
type Sharding struct {
	// Ring names the ring: every replica of one controller-manager uses
	// the same name (a label value). Empty means no ring.
	Ring string

	// DrainTimeout is sharding.Options.DrainTimeout: zero means
	// 30 s.
	DrainTimeout time.Duration
}

// BindFlags registers --shard-ring. The ring's Leases live in the leader
// election namespace, with the leader election's timings.
func (s *Sharding) BindFlags(fs FlagSet) {
	fs.StringVar(&s.Ring, "shard-ring", s.Ring,
		"If set, run sharded: join the ring of replicas of this name (a Lease each, in --leader-elect-resource-namespace, with the --leader-elect-* timings), which split the objects by namespace; every replica runs the sharded controllers for its share, and caches only that. Each sharded reconcile then times out after 4/5 of --leader-elect-lease-duration minus --leader-elect-renew-deadline, so that it ends before another replica may take its namespace over.")
}

// ringOptions are the sharding.Options of o's ring; o.Lease is complete.
func (o Options) ringOptions(registry prometheus.Registerer) sharding.Options {
	return sharding.Options{
		Name:         o.Sharding.Ring,
		Lease:        o.Lease,
		DrainTimeout: o.Sharding.DrainTimeout,
		Logger:       o.Logger,
		Registry:     registry,
	}
}

// newRing creates the ring of Options.Sharding, if any, and adds it.
func (m *Manager) newRing() error {
	if m.opts.Sharding.Ring == "" {
		return nil
	}
	ring, err := sharding.New(m.opts.ringOptions(m.registry))
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	m.ring = ring
	return m.Add(ringRunnable{ring})
}

// ringRunnable is the ring as a runnable named "shard-ring-" + its name,
// so that it does not clash with a controller named as the ring.
type ringRunnable struct{ *sharding.Ring }

func (r ringRunnable) Name() string { return "shard-ring-" + r.Ring.Name() }

// Ring is this replica's member of the ring of Options.Sharding, or nil
// without one. The Manager runs it (it needs no leader election); pass it
// to sharding.Shard for the informers of sharded controllers.
func (m *Manager) Ring() *sharding.Ring { return m.ring }
