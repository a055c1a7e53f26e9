// Package sharding scales a controller out across replicas: the replicas
// form a ring on coordination.k8s.io Leases, split the hash space of their
// keys between them, and each caches and reconciles only its share. A key
// changes hands only after its old owner has let go of it.
//
// # What a user calls
//
// With a manager, three calls: manager.Options.Sharding names the ring (the
// manager creates the Ring from Options.Lease, which leader election uses
// too, and runs it on every replica: Manager.Ring); Shard registers, in the informer
// factory, informers that list and watch only this member's share
// (ResourceOf takes a client-go typed client or a ctrlkit typed.Client);
// and the builder's Sharded makes the controller the ring's. Without a ring
// both do nothing, so one program runs sharded or not by a flag
// (--shard-ring).
//
//	mgr, err := manager.New(manager.Options{Client: client, ...,
//		Sharding: manager.Sharding{Ring: "webapp-operator"}})
//	factory := informers.NewSharedInformerFactory(client, 0)
//	err = sharding.Shard(factory, mgr.Ring(),
//		sharding.ResourceOf(webApps, sharding.Namespaced), // a *typed.Client[*WebApp]
//		sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced))
//	_, err = builder.ControllerManagedBy(mgr, "webapp", handler.ObjectKey).
//		For(typed.NewSharedInformer(factory, webApps, typed.InformerOptions{}).Informer(), kind, scope).
//		Owns(factory.Apps().V1().Deployments().Informer()).
//		Sharded().
//		Complete(reconciler)
//
// Without the builder (deployment.NewController, or a controller built by
// hand), Shard the factory the same way and build the controller with
// ControllerOptions(ring, opts, nil): it sets the ring's Gate,
// NeedLeaderElection false and a ReconcileTimeout derived from the lease. Without
// a manager, create the Ring with New and run it next to the controller.
//
// # Keys
//
// A namespaced object belongs to the hash of its namespace, a
// cluster-scoped one to the hash of its name (KeyHash), the hash the API
// server computes for a ShardSelector on object.metadata.namespace. So a
// Deployment, its ReplicaSets and its Pods always share a member. A
// namespace is never split: a ring balances well over many namespaces.
// The ring cuts the hash space where the keys are (Options.Keys: the
// cluster's namespaces by default), so that each member holds an equal
// share within Options.Hysteresis.
//
// # Guarantees
//
//   - No key is reconciled by two members at once while every reconcile
//     ends within LeaseDuration − RenewDeadline: a member hands a key over
//     only once its in-flight reconciles of it have returned, and a member
//     that cannot renew its Lease stops admitting keys RenewDeadline after
//     its last renewal, while the others take its share only LeaseDuration
//     after it. ControllerOptions (and so Sharded) sets a ReconcileTimeout
//     below that margin, and controller.New refuses a ring's Gate without
//     one.
//   - A key is admitted only once every informer Shard registered holds
//     its range, listed after the handover: a new owner sees what the old
//     one wrote.
//   - A member that leaves (Run's context ends) admits nothing more, waits
//     up to DrainTimeout for its reconciles, and releases its Lease so the
//     others take its share at once. A crashed member's share moves when
//     its Lease expires. A reconcile that outlives DrainTimeout makes Run
//     return ErrDrainTimeout: exit the process.
//   - Informers of Namespaced resources are selected by the API server
//     where it honours shard selectors (feature gate ShardedListAndWatch),
//     and always filtered on the client side too; ClusterScoped ones are
//     filtered on the client side only.
//
// # Metrics
//
// With Options.Registry, gauges and counters named ctrlkit_shard_*,
// labelled with the ring's name: members, the share of the hash space
// assigned and served, the ring's imbalance, rebalances, handovers and
// their durations, keys owned, and each sharded informer's cached objects.
//
// DESIGN.md, next to this file, explains the protocol, why it is safe, the
// balancer and the watch move, and what was measured.
package sharding
