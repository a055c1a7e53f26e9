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
// controller_runtime_active_workers) and the queue's workqueue_* metrics,
// with controller-runtime's help texts and labels, so existing dashboards
// work. Nothing is registered globally: several controllers, or several
// tests, can each use their own registry or share one, even with
// controller-runtime's controllers (its metrics.Registry).
//
// # Running several controllers
//
// Controller has the methods Run, Name, HasSynced and NeedLeaderElection
// that package controller/manager needs to run it with others, behind
// leader election, with health checks and graceful shutdown. Package
// controller/controllertest runs controllers against a fake clientset
// in tests.
package controller
