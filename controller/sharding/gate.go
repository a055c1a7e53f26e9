package sharding

import (
	"errors"

	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

// ControllerOptions returns base completed for a controller sharded by r:
// a Gate that admits only the keys r serves, NeedLeaderElection false (every
// replica runs the controller, for its share), and, unless base has one,
// r.ReconcileTimeout. These three make the handover safe: without the
// timeout a reconcile could outlive its member's fence and overlap the new
// owner's reconcile of the same key, and controller.New refuses a
// controller with a ring's Gate but no timeout below the lease margin.
//
// A key's shard is the object shardOf returns the namespace and name of
// (see KeyHash). Nil shardOf handles "namespace/name" strings
// (handler.ObjectKey, cache.MetaNamespaceKeyFunc) and types.NamespacedName;
// for another K it is an error. base with a Gate of its own is an error
// too. A nil r returns base unchanged, so that one program runs sharded or
// not by a flag (manager.Options.Sharding):
//
//	opts, err := sharding.ControllerOptions(mgr.Ring(), controller.Options[string]{Workers: 5}, nil)
//
// Package builder's Sharded does this for a built controller.
func ControllerOptions[K comparable](r *Ring, base controller.Options[K], shardOf func(K) (namespace, name string)) (controller.Options[K], error) {
	if r == nil {
		return base, nil
	}
	if base.Gate != nil {
		return base, errors.New("sharding: the options have a Gate, and a sharded controller needs the ring's")
	}
	gate, err := newGate(r, shardOf)
	if err != nil {
		return base, err
	}
	base.Gate, base.NeedLeaderElection = gate, ptr.To(false)
	if base.ReconcileTimeout == 0 {
		base.ReconcileTimeout = r.ReconcileTimeout()
	}
	return base, nil
}

// newGate is r's Gate of K's keys, the one ControllerOptions sets; shardOf
// is as there. (To observe admissions, wrap the Gate ControllerOptions
// returns; a wrapper keeps the timeout check of controller.New only if it
// passes on MaxReconcileTime.) A key of another member is
// dropped, since its owner has it; a key of r's share not handed over yet
// comes back later; an admitted key counts as in flight on r until its
// reconcile returns, so that r hands nothing over while it runs.
func newGate[K comparable](r *Ring, shardOf func(K) (namespace, name string)) (controller.Gate[K], error) {
	if shardOf != nil {
		return ring.NewGate(r.member, func(key K) (uint64, error) {
			return ring.KeyHash(shardOf(key)), nil
		}), nil
	}
	g, err := ring.KeyGate[K](r.member)
	if err != nil {
		return nil, err
	}
	return g, nil
}
