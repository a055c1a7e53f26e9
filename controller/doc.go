// Package controller runs the Kubernetes controller pattern: informer events
// become keys in a work queue, and a pool of workers hands each key to a
// Reconciler, retrying failures with backoff.
//
//	c, err := controller.New("configmaps", reconciler, controller.Options[string]{Workers: 4})
//	c.Watch(factory.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey))
//	factory.Start(ctx.Done())
//	err = c.Run(ctx)
//
// Watch takes any client-go cache.SharedInformer: from a typed, dynamic or
// metadata-only SharedInformerFactory, or a custom one.
//
// # Keys
//
// A Controller is generic in its key type K, any comparable type. The two
// common choices:
//
//   - string keys "namespace/name" (or "name" for cluster-scoped objects),
//     produced by handler.ObjectKey, the same keys client-go's
//     cache.MetaNamespaceKeyFunc makes and informer stores are indexed by.
//     Reconcile splits them with cache.SplitMetaNamespaceKey and reads the
//     object with a lister or store.GetByKey. kube-controller-manager's
//     controllers use these.
//   - types.NamespacedName keys, produced by handler.ObjectNamespacedName,
//     as controller-runtime's reconcile.Request carries them.
//
// Other keys work too: a struct with a kind for controllers of several
// kinds, or a name alone for cluster-scoped objects.
//
// # Result policy
//
// After each Reconcile, the controller forgets the key's failure history on
// success, adds it again after Result.RequeueAfter if asked, retries errors
// with the rate limiter's backoff, and gives up on a TerminalError. See
// Controller for the details.
//
// # Logging and metrics
//
// Each Reconcile's context carries a logr logger (klog.FromContext,
// logr.FromContextOrDiscard) with the values controller, key and
// reconcileID, a UUID telling one attempt's lines apart from another's;
// ReconcileIDFromContext returns it. The logger is Options.Logger or, if
// that is unset, the logger of Run's context, so that under package
// controller/manager it is the manager's.
//
// With Options.Registry set, a controller exports controller-runtime's
// metrics (controller_runtime_reconcile_total{controller,result},
// controller_runtime_reconcile_errors_total,
// controller_runtime_terminal_reconcile_errors_total,
// controller_runtime_reconcile_panics_total,
// controller_runtime_reconcile_timeouts_total,
// controller_runtime_reconcile_time_seconds,
// controller_runtime_max_concurrent_reconciles,
// controller_runtime_active_workers), the cache hold metrics below, and the
// queue's workqueue_* metrics,
// with controller-runtime's help texts and labels, so existing dashboards
// work. Nothing is registered globally: several controllers, or several
// tests, can each use their own registry or share one, even with
// controller-runtime's controllers (its metrics.Registry).
//
// # Tracing
//
// With an OpenTelemetry TracerProvider (Options.TracerProvider, or
// manager.Options.TracerProvider for every controller of a manager), each
// reconcile is one span, named after the controller, with the attributes
// AttrController, AttrKey, AttrReconcileID, AttrPriority, AttrQueueWait
// (how long the key was ready before a worker took it) and AttrResult
// (success, requeue_after, error, terminal_error or panic; a failed
// reconcile's span also has an error status and the error as an event).
// The span is in the reconcile's context, so the API requests of a client
// whose transport is instrumented become its children. With otelhttp
// (go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp) that is
// one call on the rest.Config, before the clientset is built:
//
//	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return otelhttp.NewTransport(rt) })
//
// otelhttp takes its tracer from the span in the request's context, so the
// requests go to the controller's provider; give it
// otelhttp.WithTracerProvider for requests made outside reconciles. Without
// a provider nothing is traced, and a reconcile allocates nothing more (the
// global otel.GetTracerProvider is not consulted).
//
// # Reading your own writes
//
// A controller reads from informer caches, which lag behind its writes. A
// reconcile that updates an object and is then reconciled again (an event
// of a child, a requeue) before the informer has delivered that update
// reads the older copy, and its next write conflicts (409) or repeats work
// already done: a create of a child it cannot see yet, twice.
//
// To rule that out, a reconcile records its writes:
//
//	updated, err := client.AppsV1().Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
//	controller.RecordWrite(ctx, deploymentInformer, updated)
//	err = client.AppsV1().ReplicaSets(ns).Delete(ctx, rs.Name, metav1.DeleteOptions{})
//	controller.RecordDelete(ctx, replicaSetInformer, rs)
//
// After a reconcile that recorded writes, the worker applies its result as
// usual (a requeue or retry is queued behind the key) but does not give the
// key back to the queue: the key stays in flight, so no worker gets it and
// its new events coalesce into one, until each informer has delivered each
// recorded object at the written resourceVersion or newer (compared with
// apimachinery's resourceversion.CompareResourceVersion), or its deletion.
// Options.CacheHoldTimeout (DefaultCacheHoldTimeout, 5s) bounds the wait;
// then the key proceeds anyway. The worker does not wait: it takes the next
// key, and the informer's delivery (or a timer) releases the held one. Run
// releases every held key when it stops.
//
// Use it when a reconciler decides from the cache about objects it writes
// itself (its object's status, the children it creates and deletes) and its
// keys come back soon after its writes. A reconciler that records nothing
// pays one atomic swap per reconcile, and allocates nothing more. A
// recorded write costs a small allocation, a map entry
// in the informer's tracker until it is delivered, and one timer per held
// key; an informer event costs an atomic load when no held key waits on
// that informer, a map lookup when one does. A held key's next reconcile is
// delayed by the informer's lag, usually milliseconds; the metrics
// controller_runtime_reconcile_cache_hold_keys (keys held now),
// controller_runtime_reconcile_cache_hold_duration_seconds (how long each
// hold lasted) and controller_runtime_reconcile_cache_hold_timeouts_total
// (holds released by the bound, not the informer), each labelled with the
// controller, show it. The queue counts a held key as in flight, in its
// workqueue_unfinished_work_seconds and
// workqueue_longest_running_processor_seconds.
//
// Design choices:
//
//   - A kind is named by the informer that serves it, as passed to Watch,
//     not by a GroupResource: the cache a reconciler reads is an informer,
//     two informers may serve one resource (a label-filtered one, a
//     metadata-only one) and only the one read from matters, and the
//     controller already knows its informers, so there is no mapping to
//     keep. A write against an informer the controller does not watch is
//     logged and not waited for.
//   - Progress is what the informer delivered to the controller's own
//     event handler, object by object (Watch wraps it; no extra handler or
//     goroutine), checked against the informer's store when the hold
//     starts, since the store is updated before handlers are told. It is
//     not the reflector's last-synced resourceVersion, which would need
//     polling, nor bookmarks, which handlers never see. Per object, a
//     deletion is exact (the object's UID tells a recreation apart), and
//     nothing depends on the order of unrelated objects.
//   - Only what held keys wait for is kept, and it is dropped when the
//     write is delivered or the hold ends, so memory is bounded by the
//     writes in flight rather than by the size of the caches.
//   - Versions apimachinery cannot compare (not issued by a server) count
//     as delivered: a key is never held on a write that cannot be judged.
//
// Compared with the others: kube-controller-manager's KEP-5647 ("Stale
// Controller Handling", pkg/controller/util/consistency) records per key
// the resourceVersion written to each GroupResource (WroteAt) and, at the
// start of the next sync, checks that the informers have reached it
// (EnsureReady); a sync that is not ready is skipped and the key queued
// again. Here the key is held instead of being handed out and put back,
// so a held key costs no sync and no trip through the rate limiter, and
// the wait is per object rather than per resource. controller-runtime
// v0.25's experimental read-your-writes (EnableReadYourWritesConsistency,
// #3472) works in its cache-backed client: every write through the client
// is remembered, and a later Get (or List) of that kind waits inside the
// reconcile until the cache holds it. It needs no recording calls, but
// its waits occupy a worker, and it covers only writes made through that
// client; here the reconciler says what it wrote, and no worker waits.
// Either way, only the next reconcile of the same key is held: another key
// that reads the same object may still see it stale.
//
// # Sharding across replicas
//
// Options.Gate admits each key before its reconcile. With package
// controller/sharding's gates, replicas of one controller-manager form a
// ring on Leases and each reconciles only the keys of its shard (by
// namespace), its informers caching only that shard; a key changes hands
// only after its old owner has finished with it.
//
// # Running several controllers
//
// Controller has the methods Run, Name, HasSynced and NeedLeaderElection
// that package controller/manager needs to run it with others, behind
// leader election, with health checks and graceful shutdown. Package
// controller/controllertest runs controllers against a fake clientset
// in tests.
package controller
