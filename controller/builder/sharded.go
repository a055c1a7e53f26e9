package builder

import (
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// RingHolder is a Registrar that may run a shard ring: *manager.Manager,
// whose Ring is that of its Options.Sharding.
type RingHolder interface {
	Ring() *sharding.Ring
}

// Sharded makes the controller one replica's share of the manager's shard
// ring (manager.Options.Sharding), if it runs one: it reconciles only the
// keys of this member's range, as the ring hands them over, and runs on
// every replica instead of the leader alone. Its informers (For, Owns and
// Watches) must list and watch only that range: register their resources
// with sharding.Shard(factory, mgr.Ring(), ...) right after creating the
// factory. Build refuses informers the manager's ring did not shard.
//
// A key's shard is its namespace, or its name when it has no namespace (a
// cluster-scoped object): keys must be "namespace/name" strings
// (handler.ObjectKey) or types.NamespacedName; use ShardedBy for others.
// The controller's Options become what sharding.ControllerOptions makes of
// them: the ring's Gate, NeedLeaderElection false, and, unless set, the ring's
// ReconcileTimeout; a Gate of their own is refused.
//
// Without a ring (Options.Sharding.Ring empty, or no manager) Sharded
// changes nothing, so that one program runs sharded or not by a flag.
func (b *Builder[K]) Sharded() *Builder[K] {
	b.sharded = true
	return b
}

// ShardedBy is Sharded for keys that are neither "namespace/name" strings
// nor types.NamespacedName: object returns the namespace and name of the
// object a key stands for, whose namespace (or name, if the namespace is
// empty) is the key's shard.
func (b *Builder[K]) ShardedBy(object func(K) (namespace, name string)) *Builder[K] {
	if object == nil {
		b.errs = append(b.errs, errors.New("ShardedBy: object must not be nil"))
		return b
	}
	b.sharded, b.shardOf = true, object
	return b
}

// ring is the Registrar's ring, or nil.
func (b *Builder[K]) ring() *sharding.Ring {
	if h, ok := b.mgr.(RingHolder); ok {
		return h.Ring()
	}
	return nil
}

// checkSharding reports the informers that do not belong to the
// controller's ring (a controller that is not sharded must not use the
// manager's ring's), and sharding the options refuse, every one at once.
func (b *Builder[K]) checkSharding() []error {
	var ring *sharding.Ring
	if b.sharded {
		ring = b.ring()
	}
	mgrRing := b.ring()
	var errs []error
	for _, s := range b.sources() {
		if s.informer == nil {
			continue
		}
		switch {
		case ring != nil && !ring.Shards(s.informer):
			errs = append(errs, fmt.Errorf("%s: the informer is not sharded by ring %q: register its resource with sharding.Shard(factory, mgr.Ring(), ...) before anything asks the factory for it", s.what, ring.Name()))
		case ring == nil && mgrRing.Shards(s.informer):
			errs = append(errs, fmt.Errorf("%s: the informer lists only the range of ring %q: call Sharded, or use an informer that is not sharded", s.what, mgrRing.Name()))
		}
	}
	if ring != nil {
		opts, err := sharding.ControllerOptions(ring, b.opts, b.shardOf)
		if err != nil {
			if b.shardOf == nil && b.opts.Gate == nil {
				err = fmt.Errorf("Sharded: %w (use ShardedBy)", err)
			}
			errs = append(errs, err)
		}
		b.opts = opts
	}
	return errs
}
