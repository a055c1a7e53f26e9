package ring

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// Gate admits a controller's keys through a Ring: set it as the
// controller's Options.Gate (it implements controller.Gate[K]). A key of
// another member is dropped, since its owner has it; a key of this
// member's range not handed over yet comes back after the ring's
// RetryPeriod, one whose range the caches are still listing after
// listingRetry; an admitted key counts as in flight on the ring until its
// reconcile returns, so that the ring does not acknowledge a handover
// while it runs.
type Gate[K comparable] struct {
	ring *Ring
	hash func(K) (uint64, error)
}

// listingRetry is how soon a key comes back while the informers deliver
// the list of a range the member has begun to serve. A handover takes
// ring rounds (RetryPeriod, 2 s by default); a list and its delivery take
// 0.1 to 0.5 s on a loaded two-core machine (TestShardedReplicas), and a
// key retried after a RetryPeriod would wait up to 2 s more than that.
const listingRetry = 100 * time.Millisecond

// NewGate returns a Gate that finds a key's hash with hash, which must
// agree with KeyHash of the objects the key stands for. A key whose hash
// fails is dropped.
func NewGate[K comparable](ring *Ring, hash func(K) (uint64, error)) *Gate[K] {
	return &Gate[K]{ring: ring, hash: hash}
}

// StringKeyGate is the Gate of "namespace/name" (or "name") keys, as
// handler.ObjectKey and cache.MetaNamespaceKeyFunc make them.
func StringKeyGate(ring *Ring) *Gate[string] {
	return NewGate(ring, func(key string) (uint64, error) {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return 0, err
		}
		return KeyHash(ns, name), nil
	})
}

// NamespacedNameGate is the Gate of types.NamespacedName keys.
func NamespacedNameGate(ring *Ring) *Gate[types.NamespacedName] {
	return NewGate(ring, func(key types.NamespacedName) (uint64, error) {
		return KeyHash(key.Namespace, key.Name), nil
	})
}

// KeyGate is the Gate of K's keys when K is string ("namespace/name"
// or "name" keys: StringKeyGate) or types.NamespacedName
// (NamespacedNameGate): a key's shard is its namespace, or its name when
// the namespace is empty (a cluster-scoped object), as KeyHash has it.
// For another K it fails: use NewGate with the key's hash.
func KeyGate[K comparable](ring *Ring) (*Gate[K], error) {
	var g any
	switch any(*new(K)).(type) {
	case string:
		g = StringKeyGate(ring)
	case types.NamespacedName:
		g = NamespacedNameGate(ring)
	default:
		return nil, fmt.Errorf("sharding: keys of type %T have no default shard: give the namespace and name of the object a key stands for", *new(K))
	}
	return g.(*Gate[K]), nil
}

// Admit reports whether key may be reconciled now; see Gate.
func (g *Gate[K]) Admit(key K) (release func(), retryAfter time.Duration, ok bool) {
	h, err := g.hash(key)
	if err != nil {
		g.ring.log.Error(err, "Dropping a key that has no shard", "key", key)
		return nil, 0, false
	}
	release, a := g.ring.Acquire(h)
	switch a {
	case Admitted:
		return release, 0, true
	case Pending:
		return nil, g.ring.opts.Lease.RetryPeriod, false
	case Listing:
		return nil, listingRetry, false
	default:
		return nil, 0, false
	}
}

// MaxReconcileTime is the bound package controller checks a gated
// controller's ReconcileTimeout against: LeaseDuration − RenewDeadline,
// how long a reconcile admitted just before this member fenced itself may
// run before another member may start the same key.
func (g *Gate[K]) MaxReconcileTime() time.Duration {
	return g.ring.opts.Lease.LeaseDuration - g.ring.opts.Lease.RenewDeadline
}
