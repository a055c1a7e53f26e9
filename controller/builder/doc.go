// Package builder wires a controller the way one describes it: the kind it
// reconciles, the kinds it owns, other watches with their mappings,
// predicates and options, registered with a manager.
//
//	_, err := builder.ControllerManagedBy(mgr, "webapp", handler.ObjectKey).
//		For(webapps.Informer(), webAppResource.GroupKind(), webAppResource.Scope()).
//		Owns(factory.Apps().V1().Deployments().Informer()).
//		Owns(factory.Core().V1().Services().Informer()).
//		Watches(factory.Core().V1().ConfigMaps().Informer(), handler.Map(configMapToApps)).
//		WithOptions(controller.Options[string]{Workers: 4}).
//		Complete(reconciler)
//
// It adds little of its own: For is handler.ForObject, Owns is
// handler.ForControllerOf on the primary kind (its scope, namespaced or
// cluster-scoped, says how owners are looked up; the primary informer's
// store is the lookup, so a reference left over from a deleted owner of the
// same name wakes nobody), Watches takes any handler.Handler, and Complete
// is controller.New, Controller.Watch for each, and manager.Manager.Add.
// Mistakes (no For, For twice, a nil informer) are reported together by
// Build or Complete.
//
// Sharded (or ShardedBy, for keys that are not namespace/name) runs the
// controller on every replica of a manager with a shard ring
// (manager.Options.Sharding), each reconciling only its range's keys, over
// informers that list and watch only that range (sharding.Shard); see
// package controller/sharding. Build refuses an informer the ring did not
// make, so that no replica reconciles over a whole cache, or a partial one
// it does not know about. Without a ring, Sharded does nothing.
//
// Informers come from client-go's factories (and typed.NewSharedInformer
// for custom resources, which puts them in the same factory); the manager
// starts them with the factories given to AddInformerFactory. The builder
// asks for every informer before the manager runs, so none is left
// unstarted; an informer from a factory the manager does not run fails the
// controller's cache sync, with the informers named, rather than leaving it
// waiting silently.
package builder
