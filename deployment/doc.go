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
// the namespace (with 1,000 Deployments in one namespace, the scan was about
// half of the controller's CPU). The Reconciler keeps no state between
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
// In a plain client-go workqueue loop, the way kube-controller-manager
// handles its keys (15 retries, then the key is dropped):
//
//	key, quit := queue.Get()
//	if quit {
//		return
//	}
//	res, err := r.Reconcile(ctx, key)
//	switch {
//	case err == nil:
//		queue.Forget(key)
//		if res.RequeueAfter > 0 {
//			queue.AddAfter(key, res.RequeueAfter)
//		}
//	case !controller.IsTerminal(err) && queue.NumRequeues(key) < 15:
//		queue.AddRateLimited(key)
//	default:
//		queue.Forget(key)
//	}
//	queue.Done(key)
//
// In a test, call Reconcile directly on a fake clientset with listers built
// from indexers filled by hand; see the package example.
//
// # Where it differs from upstream, on purpose
//
// internal/upstreamcheck drives this package and kube-controller-manager's
// code side by side, on hand-picked and on random worlds, and compares their
// requests, events and requeues. They differ only here:
//
//   - With under a second left before a stalled rollout's progress
//     deadline, upstream requeues the key at once, rate limited, and keeps
//     doing so until the deadline has passed; Reconcile returns a
//     RequeueAfter just past the deadline. The next pass takes the same
//     decision (ProgressDeadlineExceeded) at the same moment or a few
//     milliseconds later, without the busy loop.
//   - Objects the API server never serves: a nil spec.replicas counts as 1
//     (its default) and a Deployment without a selector fails its pass with
//     an error, where upstream dereferences nil pointers and panics.
//   - A status or spec write gives the pass's working copy the
//     resourceVersion the API server returned. Upstream writes status twice
//     from one copy in the pass that creates a new ReplicaSet; its second
//     write goes out on the resourceVersion the first replaced and is
//     refused with 409 Conflict on every rollout step, and the Deployment is
//     retried rate limited (about 2,100 refused status writes of 13,000 at
//     1,000 Deployments × 3 replicas). Here the same request carries the
//     current version and lands: no 409, no retry. The requests are
//     upstream's but for their resourceVersion; internal/cmd/scalebench's
//     RESULTS.md has the measured writes and rollout times.
//   - A Deployment whose selector would not select its own new ReplicaSet
//     (the selector names pod-template-hash, which API validation accepts)
//     gets no ReplicaSet. With matchLabels pinning a value, upstream
//     creates one, releases it at once because its hash label does not
//     match, reads the next create's AlreadyExists as a hash collision,
//     bumps collisionCount and creates another: 330 to 460 ReplicaSets in
//     15 s, for upstream and for this package alike (with In or
//     DoesNotExist, the create fails validation on every retry). Here
//     the pass sets ReplicaFailure=True with reason
//     NewReplicaSetUnadoptable, emits one Warning event (when the
//     condition appears, not every pass) and waits. The selector is
//     immutable, so the fix is to delete the Deployment and create it again.
//
// Everything else is meant to decide as upstream does, odd values included:
// an int32 overflow wraps where upstream's wraps, an annotation beyond an
// int32 is cut where upstream cuts it, and ReplicaSets are sorted with the
// algorithm upstream sorts with, because with unparsable revisions the order
// by revision is not a consistent order and the algorithm decides which old
// ReplicaSets a history cleanup deletes.
package deployment
