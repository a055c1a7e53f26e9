package deployment

import (
	"context"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
)

// cleanupDeployment deletes the oldest old ReplicaSets beyond
// spec.revisionHistoryLimit. Those are kept for rollbacks; only empty ones
// are deleted.
//
// Exactly the len-limit oldest by revision are tried, and any of them that
// still has replicas (in spec or status), has a spec change the ReplicaSet
// controller has not seen yet, or is being deleted is skipped, not replaced
// by a newer one. The first failed delete (other than NotFound) ends the
// cleanup, so as not to pile requests on a struggling API server.
//
// oldRSs must come in the order upstream hands them over (creation order
// after a rollout step, newest first after a scale): with unparsable
// revisions the order by revision depends on it (see order.go).
func (r *Reconciler) cleanupDeployment(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) error {
	logger := klog.FromContext(ctx)
	if !hasRevisionHistoryLimit(d) {
		return nil
	}
	var candidates []*appsv1.ReplicaSet
	for _, rs := range oldRSs {
		if rs != nil && rs.DeletionTimestamp == nil {
			candidates = append(candidates, rs)
		}
	}
	// In int64: a negative limit (never valid, but possible on old objects)
	// must neither overflow nor reach past the list.
	diff := min(int64(len(candidates))-int64(*d.Spec.RevisionHistoryLimit), int64(len(candidates)))
	if diff <= 0 {
		return nil
	}
	sortByRevision(candidates)
	logger.V(4).Info("Looking to cleanup old replica sets for deployment", "deployment", klog.KObj(d))

	for _, rs := range candidates[:diff] {
		if rs.Status.Replicas != 0 || rsSpecReplicas(rs) != 0 || rs.Generation > rs.Status.ObservedGeneration || rs.DeletionTimestamp != nil {
			continue
		}
		logger.V(4).Info("Trying to cleanup replica set for deployment", "replicaSet", klog.KObj(rs), "deployment", klog.KObj(d))
		if err := r.deleteReplicaSet(ctx, rs); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// hasRevisionHistoryLimit reports whether d limits its history; MaxInt32
// means unlimited.
func hasRevisionHistoryLimit(d *appsv1.Deployment) bool {
	return d.Spec.RevisionHistoryLimit != nil && *d.Spec.RevisionHistoryLimit != math.MaxInt32
}
