// Package deployment reconciles Kubernetes Deployments the way
// kube-controller-manager v1.37 does, as a Reconciler other code embeds.
//
// A Reconciler takes the same decisions as upstream's Deployment controller,
// in the same order and with the same writes, events and conditions: it
// claims ReplicaSets (adopting orphans, releasing the ones that stopped
// matching), creates the new ReplicaSet under the same pod-template-hash
// name, scales proportionally on resizes, rolls out with RollingUpdate or
// Recreate, honours the legacy rollback annotation, cleans up history and
// reports status and the progress deadline. A cluster can therefore switch
// from upstream's controller to this one, and back, without a ReplicaSet
// being re-created or a pod restarted.
//
// # What a Reconciler needs
//
// A Config holds a kubernetes.Interface for the writes, listers for
// Deployments and ReplicaSets, the pod informer's indexer carrying the
// PodControllerIndex index (AddPodControllerIndex adds it), an event recorder
// and optionally a clock and the ReplicaSet informer's indexer carrying
// ReplicaSetControllerIndex (AddReplicaSetControllerIndex): with it a pass
// reads its own ReplicaSets and the orphans rather than every ReplicaSet of
// the namespace. The Reconciler keeps no state between
// calls, starts no goroutines and reads no globals or feature gates; the one
// behaviour switch upstream takes from a feature gate,
// status.terminatingReplicas, is Config.TrackTerminatingReplicas.
//
// Reconcile(ctx, "namespace/name") runs one pass. It never touches a queue:
// a rollout that is stalled but not yet past its progress deadline returns a
// Result with RequeueAfter set, and errors that retrying cannot fix (a
// terminating namespace, a malformed key) are wrapped with
// controller.TerminalError. Logs go to klog.FromContext(ctx).
//
// # Embedding
//
// For the common case, NewController builds the Reconciler from a
// SharedInformerFactory and wires it into this module's
// controller.Controller with upstream's event rules and retry policy.
//
// Every write the Reconciler makes (ReplicaSet create, update, patch and
// delete, Deployment update and status update) is recorded with
// controller.RecordWrite or controller.RecordDelete against
// Config.DeploymentInformer or Config.ReplicaSetInformer, which
// NewController sets. The controller then holds the Deployment's key until
// those informers have delivered the writes (see "Reading your own writes"
// in the controller package), so a pass never decides from a cache older
// than the previous pass's writes: no second create of a ReplicaSet it
// cannot see yet, no status update from a stale copy. The decisions are
// upstream's; only the cache they are taken from is fresher. Without the
// informers, or called outside a controller's reconcile, nothing is recorded.
//
// To wire it yourself into controller.Controller, which maps Result and
// terminal errors onto its queue:
//
//	r, err := deployment.New(cfg)
//	c, err := controller.New[string]("deployment", r, controller.Options[string]{})
//	// plus watches on the Deployment, ReplicaSet and Pod informers
//
// In controller-runtime, adapt the key and the result:
//
//	reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
//		res, err := r.Reconcile(ctx, req.Namespace+"/"+req.Name)
//		if controller.IsTerminal(err) {
//			err = reconcile.TerminalError(err)
//		}
//		return reconcile.Result{RequeueAfter: res.RequeueAfter}, err
//	})
//
// In a plain client-go workqueue loop, Forget on success (AddAfter for a
// RequeueAfter), AddRateLimited on an error that is not terminal (upstream
// gives up after 15 retries), Forget otherwise, then Done.
//
// In a test, call Reconcile directly on a fake clientset with listers built
// from indexers filled by hand; see the package example.
//
// # Where it differs from upstream, on purpose
//
// internal/upstreamcheck drives this package and kube-controller-manager's
// code side by side, on hand-picked and on random worlds, and compares their
// requests, events and requeues. They differ only here (DESIGN.md beside
// this file has the measurements):
//
//   - A stalled rollout with under a second left before its progress
//     deadline gets a RequeueAfter just past the deadline, where upstream
//     requeues it at once, rate limited, until the deadline has passed.
//   - Objects the API server never serves (a nil spec.replicas, no
//     selector) are read as their defaults or fail the pass with an error,
//     where upstream panics.
//   - A status or spec write gives the pass's working copy the
//     resourceVersion the API server returned, so upstream's second status
//     write of a pass goes out on the current version and lands instead of
//     being refused with 409 Conflict.
//   - NewController serves keys namespace by namespace in turn
//     (Options.NamespaceLanes), where upstream's queue is first in, first
//     out: another team's new Deployment does not wait behind one team's
//     mass update. The decisions for each key are upstream's; only the order
//     in which keys are served differs, and a busy namespace still gets a
//     turn in every round, and every turn when the others are idle.
//   - A Deployment whose selector would not select its own new ReplicaSet
//     gets none, ReplicaFailure=True (NewReplicaSetUnadoptable) and one
//     Warning event, where upstream creates ReplicaSets in a loop.
//
// Everything else decides as upstream does, odd values included (int32
// wrap-around, cut annotations, upstream's sort of unparsable revisions).
package deployment
