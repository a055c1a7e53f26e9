package deployment

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// Event reasons, the same strings kube-controller-manager uses, so that
// `kubectl describe` and anything watching events read the same whichever
// controller runs.
const (
	eventScalingReplicaSet         = "ScalingReplicaSet"
	eventSelectingAll              = "SelectingAll"
	eventReplicaSetCreateError     = "ReplicaSetCreateError"
	eventRollbackDone              = "DeploymentRollback"
	eventRollbackRevisionNotFound  = "DeploymentRollbackRevisionNotFound"
	eventRollbackTemplateUnchanged = "DeploymentRollbackTemplateUnchanged"
)

// recordScaled records that rs went from oldScale to newScale replicas.
func (r *Reconciler) recordScaled(d *appsv1.Deployment, rsName string, oldScale, newScale int32) {
	direction := "down"
	if oldScale < newScale {
		direction = "up"
	}
	r.recorder.Eventf(d, corev1.EventTypeNormal, eventScalingReplicaSet,
		"Scaled %s replica set %s from %d to %d", direction, rsName, oldScale, newScale)
}

// recordCreatedScaled records the creation of rs with replicas > 0.
func (r *Reconciler) recordCreatedScaled(d *appsv1.Deployment, rsName string, replicas int32) {
	r.recorder.Eventf(d, corev1.EventTypeNormal, eventScalingReplicaSet,
		"Scaled up replica set %s from 0 to %d", rsName, replicas)
}

// recordWarning records a Warning event whose message is already formatted.
func (r *Reconciler) recordWarning(d *appsv1.Deployment, reason, msg string) {
	r.recorder.Event(d, corev1.EventTypeWarning, reason, msg)
}

// recordRollback records a successful rollback to revision.
func (r *Reconciler) recordRollback(d *appsv1.Deployment, revision int64) {
	r.recorder.Event(d, corev1.EventTypeNormal, eventRollbackDone,
		fmt.Sprintf("Rolled back deployment %q to revision %d", d.Name, revision))
}
