package deployment

import (
	"fmt"
	"math"
	"reflect"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// hasProgressDeadline reports whether d reports ProgressDeadlineExceeded:
// spec.progressDeadlineSeconds set and not MaxInt32 (which means "never").
func hasProgressDeadline(d *appsv1.Deployment) bool {
	return d.Spec.ProgressDeadlineSeconds != nil && *d.Spec.ProgressDeadlineSeconds != math.MaxInt32
}

// progressDeadline is d's spec.progressDeadlineSeconds as a duration; only
// meaningful when hasProgressDeadline(d).
func progressDeadline(d *appsv1.Deployment) time.Duration {
	return time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
}

// RolloutComplete reports whether status shows d fully rolled out: every one
// of spec.replicas updated and available, no other pods, and the current
// generation observed.
func RolloutComplete(d *appsv1.Deployment, status *appsv1.DeploymentStatus) bool {
	replicas := specReplicas(d)
	return status.UpdatedReplicas == replicas &&
		status.Replicas == replicas &&
		status.AvailableReplicas == replicas &&
		status.ObservedGeneration >= d.Generation
}

// rolloutProgressing reports whether newStatus shows progress over d's
// current status: more updated, fewer old, more ready or more available pods.
func rolloutProgressing(d *appsv1.Deployment, newStatus *appsv1.DeploymentStatus) bool {
	old := d.Status
	return newStatus.UpdatedReplicas > old.UpdatedReplicas ||
		newStatus.Replicas-newStatus.UpdatedReplicas < old.Replicas-old.UpdatedReplicas ||
		newStatus.ReadyReplicas > old.ReadyReplicas ||
		newStatus.AvailableReplicas > old.AvailableReplicas
}

// rolloutTimedOut reports whether newStatus's Progressing condition says the
// rollout ran out of time at now: already ProgressDeadlineExceeded, or last
// updated more than the deadline before now. A complete rollout
// (NewReplicaSetAvailable) never times out, nor one without a deadline or a
// Progressing condition.
func rolloutTimedOut(d *appsv1.Deployment, newStatus *appsv1.DeploymentStatus, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := GetCondition(*newStatus, appsv1.DeploymentProgressing)
	if cond == nil {
		return false
	}
	switch cond.Reason {
	case ReasonNewReplicaSetAvailable:
		// The cached Deployment may not show the new rollout's condition
		// yet; it will catch up, and the old success must not count as a stall.
		return false
	case ReasonProgressDeadlineExceeded:
		return true
	}
	return cond.LastUpdateTime.Add(progressDeadline(d)).Before(now)
}

// rolloutStatus computes the status a rollout pass writes for d: the counts
// and Available condition of calculateStatus, the Progressing condition
// (only with a progress deadline) and the ReplicaFailure condition copied
// from the ReplicaSets. It is upstream's syncRolloutStatus without the write;
// d is not modified.
func rolloutStatus(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, now time.Time, trackTerminating bool) appsv1.DeploymentStatus {
	status := calculateStatus(allRSs, newRS, d, now, trackTerminating)

	if !hasProgressDeadline(d) {
		removeDeploymentCondition(&status, appsv1.DeploymentProgressing)
	}

	// A pass right after a finished rollout (a resync, say) has nothing to
	// estimate: keep the success as it is.
	current := GetCondition(d.Status, appsv1.DeploymentProgressing)
	finished := status.Replicas == status.UpdatedReplicas && current != nil && current.Reason == ReasonNewReplicaSetAvailable
	if hasProgressDeadline(d) && !finished {
		subject := fmt.Sprintf("Deployment %q", d.Name)
		if newRS != nil {
			subject = fmt.Sprintf("ReplicaSet %q", newRS.Name)
		}
		switch {
		case RolloutComplete(d, &status):
			setDeploymentCondition(&status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				ReasonNewReplicaSetAvailable, subject+" has successfully progressed.", now))
		case rolloutProgressing(d, &status):
			// Progress always refreshes lastUpdateTime, which
			// setDeploymentCondition would not do for an unchanged reason.
			cond := newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
				ReasonReplicaSetUpdated, subject+" is progressing.", now)
			if current != nil {
				if current.Status == corev1.ConditionTrue {
					cond.LastTransitionTime = current.LastTransitionTime
				}
				removeDeploymentCondition(&status, appsv1.DeploymentProgressing)
			}
			setDeploymentCondition(&status, cond)
		case rolloutTimedOut(d, &status, now):
			setDeploymentCondition(&status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
				ReasonProgressDeadlineExceeded, subject+" has timed out progressing.", now))
		}
	}

	if failure := replicaFailureCondition(allRSs, newRS); failure != nil {
		setDeploymentCondition(&status, *failure)
	} else {
		removeDeploymentCondition(&status, appsv1.DeploymentReplicaFailure)
	}
	return status
}

// statusChanged reports whether newStatus differs from d's current status,
// i.e. whether it must be written.
func statusChanged(d *appsv1.Deployment, newStatus *appsv1.DeploymentStatus) bool {
	return !reflect.DeepEqual(d.Status, *newStatus)
}

// requeueForProgress tells when to look at a stalled rollout again, so that
// ProgressDeadlineExceeded is reported on time without waiting for a resync.
// It applies when the pass wrote nothing (newStatus equals oldStatus, d's
// status before the pass), d has a deadline, oldStatus has a Progressing
// condition, the rollout is not complete and has not already timed out.
// The key is then due at the condition's lastUpdateTime + deadline (plus one
// second against clock skew in delayed queues); with less than a second left
// it is requeued at once, rate limited.
func requeueForProgress(d *appsv1.Deployment, oldStatus, newStatus appsv1.DeploymentStatus, now time.Time) (after time.Duration, rateLimited, requeue bool) {
	if !reflect.DeepEqual(oldStatus, newStatus) || !hasProgressDeadline(d) {
		return 0, false, false
	}
	current := GetCondition(oldStatus, appsv1.DeploymentProgressing)
	if current == nil || RolloutComplete(d, &newStatus) || current.Reason == ReasonProgressDeadlineExceeded {
		return 0, false, false
	}
	left := current.LastUpdateTime.Add(progressDeadline(d)).Sub(now)
	if left < time.Second {
		return 0, true, true
	}
	return left + time.Second, false, true
}

// setPausedCondition records a pause or a resume in d's Progressing
// condition (Unknown, DeploymentPaused / DeploymentResumed), so that time
// spent paused never counts against the progress deadline. It changes nothing
// without a deadline or once the rollout has timed out, and reports whether d
// changed (upstream then writes the status at once).
func setPausedCondition(d *appsv1.Deployment, now time.Time) bool {
	if !hasProgressDeadline(d) {
		return false
	}
	cond := GetCondition(d.Status, appsv1.DeploymentProgressing)
	if cond != nil && cond.Reason == ReasonProgressDeadlineExceeded {
		return false
	}
	pausedRecorded := cond != nil && cond.Reason == ReasonDeploymentPaused
	switch {
	case d.Spec.Paused && !pausedRecorded:
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonDeploymentPaused, messagePaused, now))
		return true
	case !d.Spec.Paused && pausedRecorded:
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionUnknown, ReasonDeploymentResumed, messageResumed, now))
		return true
	}
	return false
}
