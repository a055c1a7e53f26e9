package deployment

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/controller"
)

// rolloutRecreate takes one step of a Recreate rollout: scale every old
// ReplicaSet to 0, wait until no old pod runs, then create and size the new
// ReplicaSet. The new ReplicaSet is not created earlier, so that old and new
// pods never run together.
func (r *Reconciler) rolloutRecreate(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, podMap map[types.UID][]*corev1.Pod) (controller.Result, error) {
	newRS, oldRSs, err := r.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return controller.Result{}, err
	}
	allRSs := withNewRS(oldRSs, newRS)

	scaledDown, err := r.scaleDownOldReplicaSetsForRecreate(ctx, filterActiveReplicaSets(oldRSs), d)
	if err != nil {
		return controller.Result{}, err
	}
	if scaledDown {
		return r.syncRolloutStatus(ctx, allRSs, newRS, d)
	}

	if oldPodsRunning(newRS, oldRSs, podMap) {
		return r.syncRolloutStatus(ctx, allRSs, newRS, d)
	}

	if newRS == nil {
		newRS, oldRSs, err = r.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
		if err != nil {
			return controller.Result{}, err
		}
		allRSs = withNewRS(oldRSs, newRS)
	}

	if _, _, err := r.scaleReplicaSet(ctx, newRS, specReplicas(d), d, false); err != nil {
		return controller.Result{}, err
	}

	// Judged on the status read at the start of the pass, as upstream does.
	if RolloutComplete(d, &d.Status) {
		if err := r.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return controller.Result{}, err
		}
	}
	return r.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// scaleDownOldReplicaSetsForRecreate scales every ReplicaSet of oldRSs to 0
// and reports whether any shrank.
func (r *Reconciler) scaleDownOldReplicaSetsForRecreate(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	scaled := false
	for i, rs := range oldRSs {
		if rsSpecReplicas(rs) == 0 {
			continue
		}
		changed, updated, err := r.scaleReplicaSet(ctx, rs, 0, d, false)
		if err != nil {
			return false, err
		}
		if changed {
			oldRSs[i] = updated
			scaled = true
		}
	}
	return scaled, nil
}
