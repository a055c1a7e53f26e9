package builder

import (
	"errors"
	"fmt"

	"github.com/ctrlkit/ctrlkit/controller"
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
// factory. Build refuses informers of another ring, or of none.
//
// A key's shard is its namespace, or its name when it has no namespace (a
// cluster-scoped object): keys must be "namespace/name" strings
// (handler.ObjectKey) or types.NamespacedName; use ShardedBy for others.
// The controller's Options get the ring's Gate, NoLeaderElection, and,
// unless set, the ring's ReconcileTimeout; a Gate of their own is refused.
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

// checkSharding reports informers sharded by another ring than the
// controller's (a controller that is not sharded has none), every one
// at once.
func (b *Builder[K]) checkSharding() []error {
	var ring *sharding.Ring
	if b.sharded {
		ring = b.ring()
	}
	var errs []error
	for _, s := range b.sources() {
		if s.informer == nil {
			continue
		}
		got := sharding.RingOfInformer(s.informer)
		switch {
		case got == ring:
		case ring == nil && !b.sharded:
			errs = append(errs, fmt.Errorf("%s: the informer lists only the range of %s: call Sharded, or use an informer that is not sharded", s.what, got.Name()))
		case ring == nil:
			errs = append(errs, fmt.Errorf("%s: the informer lists only the range of %s, and the manager runs no ring", s.what, got.Name()))
		case got == nil:
			errs = append(errs, fmt.Errorf("%s: the informer is not sharded: register its resource with sharding.Shard(factory, mgr.Ring(), ...) before anything asks the factory for it", s.what))
		default:
			errs = append(errs, fmt.Errorf("%s: the informer lists the range of %s, not of the manager's %s", s.what, got.Name(), ring.Name()))
		}
	}
	if ring != nil {
		if b.opts.Gate != nil {
			errs = append(errs, errors.New("Sharded: the options have a Gate, and Sharded sets the ring's"))
		}
		if b.gate = b.shardGate(ring); b.gate == nil {
			errs = append(errs, fmt.Errorf("Sharded: keys of type %T have no default shard: use ShardedBy", *new(K)))
		}
	}
	return errs
}

// shardGate is ring's gate of the controller's keys, nil if K has no
// default shard and ShardedBy gave none.
func (b *Builder[K]) shardGate(ring *sharding.Ring) controller.Gate[K] {
	if b.shardOf != nil {
		return sharding.NewGate(ring, func(key K) (uint64, error) {
			return sharding.KeyHash(b.shardOf(key)), nil
		})
	}
	if g, err := sharding.KeyGate[K](ring); err == nil {
		return g
	}
	return nil
}

// shardedOptions are opts with the ring's gate, on every replica.
func (b *Builder[K]) shardedOptions(opts controller.Options[K]) controller.Options[K] {
	if b.gate == nil {
		return opts
	}
	opts.Gate, opts.NoLeaderElection = b.gate, true
	if opts.ReconcileTimeout == 0 {
		opts.ReconcileTimeout = b.ring().ReconcileTimeout()
	}
	return opts
}
