package manager

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/lease"
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
type Sharding struct {
	// Ring names the ring: every replica of one controller-manager uses
	// the same name (a label value). Empty means no ring.
	Ring string

	// Client reads and writes the members' Leases. Nil means
	// LeaderElection.Client, then Options.Client.
	Client kubernetes.Interface
	// Namespace holds the members' Leases. Empty means
	// LeaderElection.Namespace.
	Namespace string
	// ID identifies this member; its Lease is named Ring-ID. Empty means
	// the host name and a random suffix (see sharding.Options.ID).
	ID string

	// LeaseDuration, RenewDeadline and RetryPeriod time the ring as
	// sharding.Options's do. Zero means LeaderElection's (whether or not
	// leader election is enabled), then the sharding package's defaults,
	// which are the same as this package's.
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
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

// ringOptions are the sharding.Options of o's ring.
func (o Options) ringOptions() (sharding.Options, error) {
	s, le := o.Sharding, o.LeaderElection
	or := func(v, fallback time.Duration) time.Duration {
		if v == 0 {
			return fallback
		}
		return v
	}
	ro := sharding.Options{
		Name: s.Ring,
		Lease: lease.Config{
			Client:        s.Client,
			Namespace:     s.Namespace,
			ID:            s.ID,
			LeaseDuration: or(s.LeaseDuration, le.LeaseDuration),
			RenewDeadline: or(s.RenewDeadline, le.RenewDeadline),
			RetryPeriod:   or(s.RetryPeriod, le.RetryPeriod),
		},
		DrainTimeout: s.DrainTimeout,
		Logger:       o.Logger,
	}
	if ro.Lease.Client == nil {
		ro.Lease.Client = le.Client
	}
	if ro.Lease.Client == nil {
		ro.Lease.Client = o.Client
	}
	if ro.Lease.Namespace == "" {
		ro.Lease.Namespace = le.Namespace
	}
	var errs []error
	if ro.Lease.Client == nil {
		errs = append(errs, errors.New("Sharding.Client, LeaderElection.Client or Options.Client is required with Sharding.Ring"))
	}
	if ro.Lease.Namespace == "" {
		errs = append(errs, errors.New("Sharding.Namespace or LeaderElection.Namespace is required with Sharding.Ring"))
	}
	if len(errs) > 0 {
		return ro, fmt.Errorf("manager: invalid options: %w", errors.Join(errs...))
	}
	return ro, nil
}

// newRing creates the ring of Options.Sharding, if any, and adds it.
func (m *Manager) newRing() error {
	if m.opts.Sharding.Ring == "" {
		return nil
	}
	ro, err := m.opts.ringOptions()
	if err != nil {
		return err
	}
	ro.Registry = m.registry
	ring, err := sharding.New(ro)
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
