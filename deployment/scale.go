package deployment

import (
	"context"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/klog/v2"
)

// sync handles a paused Deployment or a scaling event: it resizes the
// ReplicaSets without moving the rollout forward, cleans up history when
// paused, and records the Available condition.
func (r *Reconciler) sync(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := r.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	if err := r.scale(ctx, d, newRS, oldRSs); err != nil {
		return err // the key is retried; the rest of the pass can wait
	}
	if _, rollingBack := getRollbackTo(d); d.Spec.Paused && !rollingBack {
		if err := r.cleanupDeployment(ctx, oldRSs, d); err != nil {
			return err
		}
	}
	return r.syncDeploymentStatus(ctx, withNewRS(oldRSs, newRS), newRS, d)
}

// isScalingEvent reports whether spec.replicas changed since the active
// ReplicaSets were last sized, which their desired-replicas annotation
// records. Like upstream, it brings the new ReplicaSet's annotations and the
// Deployment's revision up to date on the way.
func (r *Reconciler) isScalingEvent(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (bool, error) {
	newRS, oldRSs, err := r.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return false, err
	}
	for _, rs := range filterActiveReplicaSets(withNewRS(oldRSs, newRS)) {
		desired, ok := desiredReplicasAnnotation(rs)
		if ok && desired != specReplicas(d) {
			return true, nil
		}
	}
	return false, nil
}

// scale resizes the ReplicaSets to spec.replicas, proportionally when a
// rolling update is under way, so that a resize neither speeds up nor slows
// down the rollout: each ReplicaSet keeps its share of the pods.
func (r *Reconciler) scale(ctx context.Context, d *appsv1.Deployment, newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) error {
	replicas := specReplicas(d)

	// One active ReplicaSet (or none: then the newest) takes everything.
	if target := findActiveOrLatest(newRS, oldRSs); target != nil {
		if rsSpecReplicas(target) == replicas {
			return nil
		}
		_, _, err := r.scaleReplicaSet(ctx, target, replicas, d, false)
		return err
	}

	// A saturated new ReplicaSet (say, one just adopted) leaves nothing for
	// the old ones.
	if isSaturated(d, newRS) {
		for _, old := range filterActiveReplicaSets(oldRSs) {
			if _, _, err := r.scaleReplicaSet(ctx, old, 0, d, false); err != nil {
				return err
			}
		}
		return nil
	}

	if !isRollingUpdate(d) {
		return nil // Recreate with several active ReplicaSets: wait for the rollout
	}

	active := filterActiveReplicaSets(withNewRS(oldRSs, newRS))
	allowed := int32(0)
	if replicas > 0 {
		allowed = replicas + maxSurge(d)
	}
	toAdd := allowed - replicaCount(active)

	// Largest first. On a tie, scaling up grows the newer ReplicaSet first and
	// scaling down shrinks the older one first.
	switch {
	case toAdd > 0:
		sortBySizeNewerFirst(active)
	case toAdd < 0:
		sortBySizeOlderFirst(active)
	}

	sizes := make([]int32, len(active))
	added := int32(0)
	for i, rs := range active {
		sizes[i] = rsSpecReplicas(rs)
		if toAdd != 0 {
			share := replicaSetProportion(ctx, rs, d, toAdd, added)
			sizes[i] += share
			added += share
		}
	}
	// Rounding leaves a remainder: the largest ReplicaSet takes it.
	if len(active) > 0 && toAdd != 0 {
		sizes[0] = max(sizes[0]+toAdd-added, 0)
	}

	for i, rs := range active {
		// Forced: annotations are written even when the size stays.
		if _, _, err := r.scaleReplicaSet(ctx, rs, sizes[i], d, true); err != nil {
			return err
		}
	}
	return nil
}

// scaleReplicaSet sets rs to newScale replicas and records the Deployment's
// size in its desired/max-replicas annotations. Unless force is set, nothing
// is written when the size already matches, even if the annotations are
// stale. It reports whether the size changed, and returns the ReplicaSet as
// updated (or rs itself when nothing was written).
func (r *Reconciler) scaleReplicaSet(ctx context.Context, rs *appsv1.ReplicaSet, newScale int32, d *appsv1.Deployment, force bool) (bool, *appsv1.ReplicaSet, error) {
	oldScale := rsSpecReplicas(rs)
	if !force && oldScale == newScale {
		return false, rs, nil
	}
	desired, most := specReplicas(d), specReplicas(d)+maxSurge(d)
	sizeChanges := oldScale != newScale
	if !sizeChanges && !replicasAnnotationsNeedUpdate(rs, desired, most) {
		return false, rs, nil
	}

	rsCopy := rs.DeepCopy()
	rsCopy.Spec.Replicas = &newScale
	setReplicasAnnotations(rsCopy, desired, most)
	updated, err := r.updateReplicaSet(ctx, rsCopy)
	if err != nil {
		return false, updated, err
	}
	if !sizeChanges {
		return false, updated, nil
	}
	r.recordScaled(d, updated.Name, oldScale, newScale)
	return true, updated, nil
}

// replicaSetProportion is how many replicas rs gains (or, negative, loses)
// out of toAdd, given that added have been handed out already: its fraction,
// capped by what is left to hand out.
func replicaSetProportion(ctx context.Context, rs *appsv1.ReplicaSet, d *appsv1.Deployment, toAdd, added int32) int32 {
	if rs == nil || rsSpecReplicas(rs) == 0 || toAdd == 0 || toAdd == added {
		return 0
	}
	fraction := replicaSetFraction(ctx, rs, d)
	left := toAdd - added
	if toAdd > 0 {
		return min(fraction, left)
	}
	return max(fraction, left)
}

// replicaSetFraction is rs's size scaled by the Deployment's new
// spec.replicas+maxSurge over the value its max-replicas annotation recorded
// when it was last sized, minus its size: what it must gain or lose to keep
// its share.
func replicaSetFraction(ctx context.Context, rs *appsv1.ReplicaSet, d *appsv1.Deployment) int32 {
	size := rsSpecReplicas(rs)
	replicas := specReplicas(d)
	if replicas == 0 {
		return -size
	}
	newMax := replicas + maxSurge(d)
	oldMax, ok := maxReplicasAnnotation(rs)
	if !ok || oldMax == 0 {
		// The annotation was removed or tampered with: fall back on the
		// Deployment's current size, which stays within bounds thanks to the
		// caps in replicaSetProportion even if it is not exact.
		klog.FromContext(ctx).V(2).Info("Replica set has no usable max-replicas annotation", "replicaSet", klog.KObj(rs))
		oldMax = d.Status.Replicas
		if oldMax == 0 {
			return 0
		}
	}
	// The product is taken in int32 before the division, as upstream does;
	// keeping its overflow for huge sizes keeps the decisions identical.
	scaled := float64(size*newMax) / float64(oldMax)
	return roundToInt32(scaled) - size
}

// roundToInt32 rounds half away from zero.
func roundToInt32(f float64) int32 {
	return int32(math.Round(f))
}
