package controllerutil

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The condition types kstatus (sigs.k8s.io/cli-utils/pkg/kstatus), and so
// kpt, Flux and Config Sync, read on any resource. Reconciling and Stalled
// are "abnormal-true": present and True only while something is off, and
// absent otherwise. Ready is "normal-true", for kubectl wait
// --for=condition=Ready and for readers that want one positive condition.
//
// kstatus computes Current when status.observedGeneration equals
// metadata.generation and neither Reconciling nor Stalled is True;
// InProgress while Reconciling is True or the generation is not yet
// observed; Failed while Stalled is True. The helpers below set the
// conditions; the caller sets status.observedGeneration to the object's
// generation in the same status write.
const (
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
)

// MarkReconciling records that obj is being brought to its desired state:
// Reconciling True and Ready False, both with reason and message, and no
// Stalled. Conditions carry obj's generation (see SetCondition). It
// reports whether conditions changed.
func MarkReconciling(obj metav1.Object, conditions *[]metav1.Condition, reason, message string) (changed bool) {
	return markAbnormal(obj, conditions, ConditionReconciling, ConditionStalled, reason, message)
}

// MarkStalled records that obj cannot reach its desired state without
// outside help (an error that retries will not fix, a deadline exceeded):
// Stalled True and Ready False, both with reason and message, and no
// Reconciling. It reports whether conditions changed.
func MarkStalled(obj metav1.Object, conditions *[]metav1.Condition, reason, message string) (changed bool) {
	return markAbnormal(obj, conditions, ConditionStalled, ConditionReconciling, reason, message)
}

// MarkReady records that obj has reached its desired state: Ready True
// with reason and message, and neither Reconciling nor Stalled. It reports
// whether conditions changed.
func MarkReady(obj metav1.Object, conditions *[]metav1.Condition, reason, message string) (changed bool) {
	changed = SetCondition(obj, conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionTrue, Reason: reason, Message: message})
	removedR := meta.RemoveStatusCondition(conditions, ConditionReconciling)
	removedS := meta.RemoveStatusCondition(conditions, ConditionStalled)
	return changed || removedR || removedS
}

// markAbnormal sets the abnormal-true condition set and Ready False, and
// removes the other abnormal-true condition, clear.
func markAbnormal(obj metav1.Object, conditions *[]metav1.Condition, set, clear, reason, message string) bool {
	changedSet := SetCondition(obj, conditions, metav1.Condition{Type: set, Status: metav1.ConditionTrue, Reason: reason, Message: message})
	changedReady := SetCondition(obj, conditions, metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, Reason: reason, Message: message})
	removed := meta.RemoveStatusCondition(conditions, clear)
	return changedSet || changedReady || removed
}
