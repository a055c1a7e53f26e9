package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
)

// The Reconciler's API writes, every one of them. Each records what the API
// server returned against the informer the Reconciler reads that kind from
// (controller.RecordWrite, controller.RecordDelete), so that a controller
// running the Reconciler does not hand the Deployment to a worker again
// before its caches hold these writes. The requests themselves, and what the
// callers do with the results, are upstream's.

func (r *Reconciler) createReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	created, err := r.client.AppsV1().ReplicaSets(rs.Namespace).Create(ctx, rs, metav1.CreateOptions{})
	return recorded(ctx, r.replicaSetInformer, created, err)
}

func (r *Reconciler) updateReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) (*appsv1.ReplicaSet, error) {
	updated, err := r.client.AppsV1().ReplicaSets(rs.Namespace).Update(ctx, rs, metav1.UpdateOptions{})
	return recorded(ctx, r.replicaSetInformer, updated, err)
}

func (r *Reconciler) patchReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, patch []byte) (*appsv1.ReplicaSet, error) {
	patched, err := r.client.AppsV1().ReplicaSets(rs.Namespace).Patch(ctx, rs.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
	return recorded(ctx, r.replicaSetInformer, patched, err)
}

// deleteReplicaSet deletes rs, the cached copy: its UID tells the controller
// a ReplicaSet re-created under the same name apart from the deleted one.
func (r *Reconciler) deleteReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet) error {
	err := r.client.AppsV1().ReplicaSets(rs.Namespace).Delete(ctx, rs.Name, metav1.DeleteOptions{})
	if err == nil && r.replicaSetInformer != nil {
		controller.RecordDelete(ctx, r.replicaSetInformer, rs)
	}
	return err
}

func (r *Reconciler) updateDeployment(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	updated, err := r.client.AppsV1().Deployments(d.Namespace).Update(ctx, d, metav1.UpdateOptions{})
	carryResourceVersion(d, updated, err)
	return recorded(ctx, r.deploymentInformer, updated, err)
}

func (r *Reconciler) updateDeploymentStatus(ctx context.Context, d *appsv1.Deployment) (*appsv1.Deployment, error) {
	updated, err := r.client.AppsV1().Deployments(d.Namespace).UpdateStatus(ctx, d, metav1.UpdateOptions{})
	carryResourceVersion(d, updated, err)
	return recorded(ctx, r.deploymentInformer, updated, err)
}

// carryResourceVersion gives d, the pass's working copy that was just
// written, the resourceVersion the API server returned for it. Upstream
// drops what its writes return: the pass that creates a ReplicaSet writes
// the Deployment's status (the new revision) and later writes it again from
// the same copy, on the resourceVersion the first write replaced, so on a
// real API server that second write is refused with 409 Conflict on every
// rollout, and the Deployment is retried through the rate limiter. With the
// version carried the second request is the same but for its
// resourceVersion, and it lands. Nothing the pass decides changes.
func carryResourceVersion(d, written *appsv1.Deployment, err error) {
	if err == nil && written != nil {
		d.ResourceVersion = written.ResourceVersion
	}
}

// recorded records written, the object a successful write returned, against
// informer, and passes the write's results through. A failed write, or a
// nil informer (a Config without informers), records nothing.
func recorded[T metav1.Object](ctx context.Context, informer cache.SharedInformer, written T, err error) (T, error) {
	if err == nil && informer != nil {
		controller.RecordWrite(ctx, informer, written)
	}
	return written, err
}
