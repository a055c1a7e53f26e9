// Package handler turns informer events into keys for a work queue.
//
// A [Handler] has two parts: a mapping from an object to the keys to
// reconcile, and an optional [Predicate] that decides which events count.
// These mappings cover almost every controller:
//
//   - [ForObject]: the object itself, keyed by [ObjectKey] ("namespace/name")
//     or [ObjectNamespacedName], or any function of the object;
//   - [ForControllerOf]: the object's controller owner of one group and kind,
//     namespaced (meta.RESTScopeNamespace) or cluster-scoped
//     (meta.RESTScopeRoot), looked up by name and checked by UID the way
//     kube-controller-manager does, so a stale owner reference never wakes a
//     new owner of the same name;
//   - [Map]: any function from an object to keys;
//   - [MapEvent]: any function from a whole event (type, old and new
//     object) to keys, for rules that need both sides of an update.
//
// [Handler.EventHandler] binds a handler to a [Queue] and returns the
// client-go cache.ResourceEventHandler to register on any
// cache.SharedInformer: typed, dynamic, metadata-only or custom. The
// controller package does that for you in Controller.Watch.
//
// # Events
//
// Tombstones (cache.DeletedFinalStateUnknown) are unwrapped before predicates
// and mappings see them. Objects that do not carry Kubernetes object metadata
// are reported through k8s.io/apimachinery/pkg/util/runtime.HandleError and
// dropped. An update maps both the old and the new object, so a dependent
// whose owner changed wakes both owners; keys are added once per event, in
// the order they were mapped, however many an event maps to.
//
// Keys from the informer's initial list and from periodic resyncs (updates
// whose resourceVersion did not change) are added at
// workqueue.PriorityLow, so a controller starting up or resyncing serves real
// changes first. Every other event adds at workqueue.PriorityNormal, or at
// the priority [Handler.WithPriority] gives it.
//
// # Predicates
//
// A predicate sees one [Event] at a time, whatever its [EventType], and
// returns whether to enqueue. The built-in "changed" predicates only judge
// updates and let creates and deletes through; combine them with [And], [Or],
// [Not], and [OnlyEventTypes] to express per-kind rules.
//
// # Informer helpers
//
// The informer is client-go's: any cache.SharedInformer, usually from an
// informers.SharedInformerFactory. [StripManagedFields] is a
// cache.TransformFunc that drops managedFields before objects are stored;
// controllers rarely read them, and they are often a large part of an
// object. Give it to the factory:
//
//	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
//		informers.WithTransform(handler.StripManagedFields))
//
// [MetadataInformer] builds a metadata-only informer for objects a controller
// owns but only needs the metadata of (owner references, labels).
package handler
