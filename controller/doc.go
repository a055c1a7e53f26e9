// Package controller runs the Kubernetes controller pattern: informer events
// become keys in a work queue, and a pool of workers hands each key to a
// Reconciler, retrying failures with backoff.
//
//	c, err := controller.New("configmaps", reconciler, controller.Options[string]{Workers: 4})
//	c.Watch(factory.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey))
//	factory.Start(ctx.Done())
//	err = c.Run(ctx)
//
// Watch takes any client-go cache.SharedInformer (typed, dynamic,
// metadata-only or custom). A Controller is generic in its key type K:
// "namespace/name" strings (handler.ObjectKey, client-go's
// cache.MetaNamespaceKeyFunc keys), types.NamespacedName
// (handler.ObjectNamespacedName, as in controller-runtime's
// reconcile.Request), or any comparable type.
//
// # Guarantees
//
//   - A key is never reconciled by two workers at once.
//   - After each Reconcile the result policy of Controller applies: success
//     forgets the key's failures, Result.RequeueAfter adds it again later,
//     an error retries it with backoff, a TerminalError gives up, a panic is
//     recovered and retried like an error (Options.DisablePanicRecovery).
//   - Run waits for every watched informer to sync before the first
//     reconcile, and on shutdown lets in-flight reconciles finish (at most
//     Options.ShutdownTimeout).
//
// # Logging, metrics and tracing
//
// Each Reconcile's context carries a logr logger (klog.FromContext,
// logr.FromContextOrDiscard) with the values controller, key and
// reconcileID (ReconcileIDFromContext). It is Options.Logger, or else the
// logger of Run's context (under package controller/manager, the
// manager's). With Options.Registry set, a controller exports
// controller-runtime's controller_runtime_* metrics and the queue's
// workqueue_* metrics, with controller-runtime's names, help and labels;
// nothing is registered globally. With an OpenTelemetry TracerProvider
// (Options.TracerProvider, or the manager's), each reconcile is one span
// named after the controller, with the Attr* attributes and AttrResult one
// of the Result* values; API requests of a client whose transport is
// instrumented (otelhttp.NewTransport via rest.Config.Wrap) become its
// children. Without a provider nothing is traced.
//
// # Reading your own writes
//
// Informer caches lag behind a controller's writes, so a key reconciled
// again soon after a write may read the older copy and conflict (409) or
// repeat work. A reconcile that records its writes rules that out:
//
//	updated, err := client.AppsV1().Deployments(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{})
//	controller.RecordWrite(ctx, deploymentInformer, updated)
//	err = client.AppsV1().ReplicaSets(ns).Delete(ctx, rs.Name, metav1.DeleteOptions{})
//	controller.RecordDelete(ctx, replicaSetInformer, rs)
//
// The controller then applies the result as usual but keeps the key in
// flight, so no worker gets it and its events coalesce, until each informer
// has delivered each recorded object at the written resourceVersion or
// newer, or its deletion, at most Options.CacheHoldTimeout. No worker waits
// for it, and Run releases held keys when it stops. Only the next reconcile
// of the same key is held: another key reading the same object may still
// see it stale. A reconciler that records nothing is never held.
// Options.DisableReadYourWrites turns it off. The metrics
// controller_runtime_reconcile_cache_hold_keys,
// controller_runtime_reconcile_cache_hold_duration_seconds and
// controller_runtime_reconcile_cache_hold_timeouts_total show the holds.
//
// # Sharding and running several controllers
//
// Options.Gate admits each key before its reconcile; package
// controller/sharding's gates split keys among replicas. Package
// controller/manager runs controllers together (Run, Name, HasSynced,
// NeedLeaderElection) behind leader election; package
// controller/controllertest runs them against a fake clientset in tests.
//
// DESIGN.md in this directory gives the reasons and the measurements.
package controller
