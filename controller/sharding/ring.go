package sharding

import (
	"context"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

// ErrDrainTimeout is returned by Run when the reconciles of keys this
// member lost did not finish within Options.DrainTimeout. The member has
// stopped renewing its Lease; the process should exit.
var ErrDrainTimeout = ring.ErrDrainTimeout

// RingLabel labels each member's Lease with the ring's name (Options.Name):
// members find each other by listing the Leases that carry it.
const RingLabel = "ctrlkit.io/shard-ring"

// Ring is this process's member of a ring of replicas that split the keys
// of their sharded controllers by hash. Run keeps its Lease and its share
// current; Shard gives informers that list and watch only that share, and
// ControllerOptions a controller that reconciles only its keys.
type Ring struct {
	member *ring.Ring
}

// New returns a ring member that has not joined yet: Run joins.
func New(opts Options) (*Ring, error) {
	m, err := ring.New(ring.Options(opts))
	if err != nil {
		return nil, err
	}
	return &Ring{member: m}, nil
}

// ID is this member's identity (Options.Lease.ID, or the one generated).
func (r *Ring) ID() string { return r.member.ID() }

// Name is the ring's name, Options.Name.
func (r *Ring) Name() string { return r.member.Name() }

// NeedLeaderElection is false: every replica is a member. A manager runs
// the ring on every replica, next to its leader election.
func (r *Ring) NeedLeaderElection() bool { return false }

// Run joins the ring and keeps this member's Lease and share current until
// ctx ends. Then it leaves: it admits no more keys, waits at most
// Options.DrainTimeout for the reconciles in flight, and releases its Lease
// so that the others take its share at once. It returns ErrDrainTimeout if
// lost keys do not drain in time.
func (r *Ring) Run(ctx context.Context) error { return r.member.Run(ctx) }

// ReconcileTimeout is the longest a reconcile of a controller sharded by r
// may run: four fifths of LeaseDuration − RenewDeadline. A member that
// loses the API server stops admitting keys RenewDeadline after its last
// renewal, and the others take its share LeaseDuration after it, so a
// reconcile admitted just before the fence must have returned by then; the
// last fifth is left for it to return once its context has ended.
// ControllerOptions sets it.
func (r *Ring) ReconcileTimeout() time.Duration { return r.member.ReconcileTimeout() }

// Shards reports whether informer is one that Shard registered for r.
// Package builder uses it to refuse a sharded controller over an informer
// of another ring, or of none.
func (r *Ring) Shards(informer cache.SharedInformer) bool {
	return r != nil && informer != nil && r.member.Shards(informer)
}

// Serves reports whether r admits the keys of the object with this
// namespace and name now (its namespace's hash, or its name's if
// namespace is empty, is in the share r serves).
func (r *Ring) Serves(namespace, name string) bool {
	return r.member.Serving().Contains(ring.KeyHash(namespace, name))
}

// Members is the ring's live members as this member last saw them,
// sorted; empty before it has joined.
func (r *Ring) Members() []string { return r.member.Members() }

// Key is one shard key the ring balances (see Options.Keys), a struct of
// two fields: Hash, the hash of the objects it stands for (KeyHash), and
// Weight, 1 to count keys or the number of objects to count objects:
//
//	sharding.Key{Hash: sharding.KeyHash(namespace, ""), Weight: 1}
type Key = ring.Key

// KeyHash is the point of the 64-bit hash space that an object with this
// namespace and name belongs to: the hash of its namespace, or of its name
// if it is cluster-scoped (namespace ""). It is the hash the API server
// computes for a ShardSelector on object.metadata.namespace, so both sides
// agree; every object of a namespace lands on one member.
func KeyHash(namespace, name string) uint64 { return ring.KeyHash(namespace, name) }
