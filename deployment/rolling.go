package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
)

// rolloutRolling takes one step of a RollingUpdate rollout: grow the new
// ReplicaSet as far as maxSurge allows, or else shrink the old ones as far as
// maxUnavailable allows; with nothing left to do, clean up history. Every
// path ends by recording the rollout status.
func (r *Reconciler) rolloutRolling(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (controller.Result, error) {
	newRS, oldRSs, err := r.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return controller.Result{}, err
	}
	allRSs := withNewRS(oldRSs, newRS)

	scaledUp, err := r.reconcileNewReplicaSet(ctx, allRSs, newRS, d)
	if err != nil {
		return controller.Result{}, err
	}
	if scaledUp {
		return r.syncRolloutStatus(ctx, allRSs, newRS, d)
	}

	scaledDown, err := r.reconcileOldReplicaSets(ctx, allRSs, filterActiveReplicaSets(oldRSs), newRS, d)
	if err != nil {
		return controller.Result{}, err
	}
	if scaledDown {
		return r.syncRolloutStatus(ctx, allRSs, newRS, d)
	}

	// Judged on the status read at the start of the pass, as upstream does.
	if RolloutComplete(d, &d.Status) {
		if err := r.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return controller.Result{}, err
		}
	}
	return r.syncRolloutStatus(ctx, allRSs, newRS, d)
}

// reconcileNewReplicaSet brings the new ReplicaSet toward spec.replicas:
// down at once if it is larger, up as far as maxSurge allows if smaller. It
// reports whether the size changed.
func (r *Reconciler) reconcileNewReplicaSet(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	replicas := specReplicas(d)
	size := rsSpecReplicas(newRS)
	if size == replicas {
		return false, nil
	}
	if size > replicas {
		scaled, _, err := r.scaleReplicaSet(ctx, newRS, replicas, d, false)
		return scaled, err
	}
	target, err := newRSNewReplicas(d, allRSs, newRS)
	if err != nil {
		return false, err
	}
	scaled, _, err := r.scaleReplicaSet(ctx, newRS, target, d, false)
	return scaled, err
}

// reconcileOldReplicaSets shrinks the old ReplicaSets as far as
// maxUnavailable allows, unhealthy replicas first. It reports whether
// anything shrank. Like upstream, failures here are not errors: the pass
// goes on to record the status and the next pass tries again.
func (r *Reconciler) reconcileOldReplicaSets(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (bool, error) {
	logger := klog.FromContext(ctx)
	if replicaCount(oldRSs) == 0 {
		return false, nil // nothing left to shrink
	}
	allPods := replicaCount(allRSs)
	logger.V(4).Info("New replica set", "replicaSet", klog.KObj(newRS), "availableReplicas", newRS.Status.AvailableReplicas)

	// What may go: every pod above minAvailable, minus the new ReplicaSet's
	// pods that are not available yet. Counting those keeps a broken new
	// template from draining the old pods: with 10 replicas, maxUnavailable 2
	// and maxSurge 3, if the new ReplicaSet's 5 pods crash-loop, 13-8-5 = 0
	// and the old ReplicaSets keep their 8 pods.
	minAvailable := specReplicas(d) - maxUnavailable(d)
	newUnavailable := rsSpecReplicas(newRS) - newRS.Status.AvailableReplicas
	maxScaledDown := allPods - minAvailable - newUnavailable
	if maxScaledDown <= 0 {
		return false, nil
	}

	// Unhealthy replicas first: removing them costs no availability, and
	// left alone they could stall the rollout until it times out.
	oldRSs, cleaned, err := r.cleanupUnhealthyReplicas(ctx, oldRSs, d, maxScaledDown)
	if err != nil {
		logger.V(4).Info("Could not clean up unhealthy replicas", "deployment", klog.KObj(d), "err", err)
		return false, nil
	}
	logger.V(4).Info("Cleaned up unhealthy replicas from old RSes", "count", cleaned)

	scaledDown, err := r.scaleDownOldReplicaSetsForRollingUpdate(ctx, withNewRS(oldRSs, newRS), oldRSs, d)
	if err != nil {
		logger.V(4).Info("Could not scale down old replica sets", "deployment", klog.KObj(d), "err", err)
		return false, nil
	}
	logger.V(4).Info("Scaled down old RSes", "deployment", klog.KObj(d), "count", scaledDown)
	return cleaned+scaledDown > 0, nil
}

// cleanupUnhealthyReplicas shrinks old ReplicaSets, oldest first, by their
// unavailable replicas, removing at most maxCleanup in all. The ReplicaSet
// controller deletes not-ready pods first, so this removes the unhealthy
// ones. It returns oldRSs (sorted, with the updated ReplicaSets in place) and
// how many replicas went.
//
// A ReplicaSet reporting more available replicas than its size makes the
// step fail (upstream's guard against growing it); the caller then skips
// scaling down for this pass.
func (r *Reconciler) cleanupUnhealthyReplicas(ctx context.Context, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment, maxCleanup int32) ([]*appsv1.ReplicaSet, int32, error) {
	logger := klog.FromContext(ctx)
	sortByCreation(oldRSs)
	total := int32(0)
	for i, rs := range oldRSs {
		if total >= maxCleanup {
			break
		}
		size := rsSpecReplicas(rs)
		if size == 0 {
			continue
		}
		logger.V(4).Info("Found available pods in old RS", "replicaSet", klog.KObj(rs), "availableReplicas", rs.Status.AvailableReplicas)
		if size == rs.Status.AvailableReplicas {
			continue // all healthy
		}
		count := min(maxCleanup-total, size-rs.Status.AvailableReplicas)
		target := size - count
		if target > size {
			return nil, 0, fmt.Errorf("when cleaning up unhealthy replicas, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, size, target)
		}
		_, updated, err := r.scaleReplicaSet(ctx, rs, target, d, false)
		if err != nil {
			return nil, total, err
		}
		total += count
		oldRSs[i] = updated
	}
	return oldRSs, total, nil
}

// scaleDownOldReplicaSetsForRollingUpdate shrinks old ReplicaSets, oldest
// first, by as many replicas as are available above minAvailable. It returns
// how many went.
func (r *Reconciler) scaleDownOldReplicaSetsForRollingUpdate(ctx context.Context, allRSs, oldRSs []*appsv1.ReplicaSet, d *appsv1.Deployment) (int32, error) {
	minAvailable := specReplicas(d) - maxUnavailable(d)
	available := availableReplicaCount(allRSs)
	if available <= minAvailable {
		return 0, nil
	}
	klog.FromContext(ctx).V(4).Info("Found available pods in deployment, scaling down old RSes", "deployment", klog.KObj(d), "availableReplicas", available)

	sortByCreation(oldRSs)
	budget := available - minAvailable
	total := int32(0)
	for _, rs := range oldRSs {
		if total >= budget {
			break
		}
		size := rsSpecReplicas(rs)
		if size == 0 {
			continue
		}
		count := min(size, budget-total)
		target := size - count
		if target > size {
			return 0, fmt.Errorf("when scaling down old RS, got invalid request to scale down %s/%s %d -> %d", rs.Namespace, rs.Name, size, target)
		}
		if _, _, err := r.scaleReplicaSet(ctx, rs, target, d, false); err != nil {
			return total, err
		}
		total += count
	}
	return total, nil
}
