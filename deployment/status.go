package deployment

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// calculateStatus computes d's status from its ReplicaSets (allRSs may hold
// nil entries, e.g. a missing new ReplicaSet) and sets the Available
// condition. It keeps d's other conditions and collisionCount; d is not
// modified. trackTerminating fills status.terminatingReplicas (upstream's
// DeploymentReplicaSetTerminatingReplicas feature, on by default in v1.37).
func calculateStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment, now time.Time, trackTerminating bool) appsv1.DeploymentStatus {
	available := availableReplicaCount(allRSs)
	status := appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            actualReplicaCount(allRSs),
		UpdatedReplicas:     actualReplicaCount([]*appsv1.ReplicaSet{newRS}),
		ReadyReplicas:       readyReplicaCount(allRSs),
		AvailableReplicas:   available,
		UnavailableReplicas: max(0, replicaCount(allRSs)-available),
		CollisionCount:      d.Status.CollisionCount,
	}
	if trackTerminating {
		status.TerminatingReplicas = terminatingReplicaCount(allRSs)
	}
	// A copy (status.Conditions is nil so far): appending to d's slice could
	// write into the cache's array.
	status.Conditions = append(status.Conditions, d.Status.Conditions...)

	if available >= specReplicas(d)-maxUnavailable(d) {
		setDeploymentCondition(&status, newDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionTrue, ReasonMinimumReplicasAvailable, messageMinimumAvailable, now))
	} else {
		setDeploymentCondition(&status, newDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, ReasonMinimumReplicasUnavailable, messageMinimumUnavailable, now))
	}
	return status
}

// availabilityOnlyStatus is the status written by passes that are not
// rollout steps (paused, scaling, being deleted): counts and the Available
// condition only, Progressing left as it is.
func availabilityOnlyStatus(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment, now time.Time, trackTerminating bool) appsv1.DeploymentStatus {
	return calculateStatus(allRSs, newRS, d, now, trackTerminating)
}

// terminatingReplicaCount sums the ReplicaSets' terminating pods. ReplicaSets
// the ReplicaSet controller never synced (observedGeneration 0, no count) do
// not count; a synced one that does not report the count makes the sum
// unknown (nil). No ReplicaSets give 0.
func terminatingReplicaCount(rss []*appsv1.ReplicaSet) *int32 {
	var sum int32
	for _, rs := range rss {
		switch {
		case rs == nil:
		case rs.Status.TerminatingReplicas == nil && rs.Status.ObservedGeneration == 0:
		case rs.Status.TerminatingReplicas == nil:
			return nil
		default:
			sum += *rs.Status.TerminatingReplicas
		}
	}
	return &sum
}
