package deployment

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons of the Deployment conditions, as upstream writes them: tools such
// as `kubectl rollout status` match on these strings.
const (
	// ReasonReplicaSetUpdated (Progressing=True): a rollout step made progress.
	ReasonReplicaSetUpdated = "ReplicaSetUpdated"
	// ReasonReplicaSetCreateError (Progressing=False): the new ReplicaSet could not be created.
	ReasonReplicaSetCreateError = "ReplicaSetCreateError"
	// ReasonNewReplicaSetCreated (Progressing=True): the new ReplicaSet was created.
	ReasonNewReplicaSetCreated = "NewReplicaSetCreated"
	// ReasonFoundNewReplicaSet (Progressing=True): the new ReplicaSet already existed.
	ReasonFoundNewReplicaSet = "FoundNewReplicaSet"
	// ReasonNewReplicaSetAvailable (Progressing=True): the rollout is complete.
	ReasonNewReplicaSetAvailable = "NewReplicaSetAvailable"
	// ReasonProgressDeadlineExceeded (Progressing=False): no progress within
	// spec.progressDeadlineSeconds.
	ReasonProgressDeadlineExceeded = "ProgressDeadlineExceeded"
	// ReasonDeploymentPaused (Progressing=Unknown): the Deployment is paused.
	ReasonDeploymentPaused = "DeploymentPaused"
	// ReasonDeploymentResumed (Progressing=Unknown): the Deployment was resumed.
	ReasonDeploymentResumed = "DeploymentResumed"
	// ReasonMinimumReplicasAvailable (Available=True).
	ReasonMinimumReplicasAvailable = "MinimumReplicasAvailable"
	// ReasonMinimumReplicasUnavailable (Available=False).
	ReasonMinimumReplicasUnavailable = "MinimumReplicasUnavailable"
)

// Condition messages without parameters.
const (
	messageMinimumAvailable   = "Deployment has minimum availability."
	messageMinimumUnavailable = "Deployment does not have minimum availability."
	messagePaused             = "Deployment is paused"
	messageResumed            = "Deployment is resumed"
)

// GetCondition returns a copy of status's condition of type t, or nil.
func GetCondition(status appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			c := status.Conditions[i]
			return &c
		}
	}
	return nil
}

// newDeploymentCondition returns a condition updated and transitioned at now.
func newDeploymentCondition(t appsv1.DeploymentConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) appsv1.DeploymentCondition {
	ts := metav1.NewTime(now)
	return appsv1.DeploymentCondition{
		Type:               t,
		Status:             status,
		LastUpdateTime:     ts,
		LastTransitionTime: ts,
		Reason:             reason,
		Message:            message,
	}
}

// setDeploymentCondition puts c into status, replacing the condition of the
// same type. A condition with the same status and reason as the current one
// changes nothing (not even the message or times); with the same status and
// another reason, the current lastTransitionTime is kept. The replaced
// condition moves to the end of the list, as upstream orders them.
func setDeploymentCondition(status *appsv1.DeploymentStatus, c appsv1.DeploymentCondition) {
	if cur := GetCondition(*status, c.Type); cur != nil {
		if cur.Status == c.Status && cur.Reason == c.Reason {
			return
		}
		if cur.Status == c.Status {
			c.LastTransitionTime = cur.LastTransitionTime
		}
	}
	status.Conditions = append(withoutCondition(status.Conditions, c.Type), c)
}

// removeDeploymentCondition drops status's condition of type t.
func removeDeploymentCondition(status *appsv1.DeploymentStatus, t appsv1.DeploymentConditionType) {
	status.Conditions = withoutCondition(status.Conditions, t)
}

// withoutCondition returns a new slice (nil when empty, as upstream) without
// conditions of type t; the input is not modified.
func withoutCondition(conds []appsv1.DeploymentCondition, t appsv1.DeploymentConditionType) []appsv1.DeploymentCondition {
	var out []appsv1.DeploymentCondition
	for _, c := range conds {
		if c.Type != t {
			out = append(out, c)
		}
	}
	return out
}

// replicaFailureCondition returns the ReplicaFailure condition the Deployment
// should carry: the first one of newRS, else the first one of any of allRSs,
// else nil. Its lastUpdateTime is the ReplicaSet condition's
// lastTransitionTime.
func replicaFailureCondition(allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) *appsv1.DeploymentCondition {
	for _, rs := range append([]*appsv1.ReplicaSet{newRS}, allRSs...) {
		if rs == nil {
			continue
		}
		for _, c := range rs.Status.Conditions {
			if c.Type != appsv1.ReplicaSetReplicaFailure {
				continue
			}
			return &appsv1.DeploymentCondition{
				Type:               appsv1.DeploymentReplicaFailure,
				Status:             c.Status,
				LastUpdateTime:     c.LastTransitionTime,
				LastTransitionTime: c.LastTransitionTime,
				Reason:             c.Reason,
				Message:            c.Message,
			}
		}
	}
	return nil
}
