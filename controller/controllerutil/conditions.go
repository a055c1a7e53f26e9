package controllerutil

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SetCondition sets condition in conditions with apimachinery's
// meta.SetStatusCondition (which keeps lastTransitionTime unless the status
// changes), after stamping it with the generation of obj it describes
// (condition.ObservedGeneration = obj's metadata.generation). It reports
// whether conditions changed, so that a reconciler writes status only then.
func SetCondition(obj metav1.Object, conditions *[]metav1.Condition, condition metav1.Condition) (changed bool) {
	condition.ObservedGeneration = obj.GetGeneration()
	return meta.SetStatusCondition(conditions, condition)
}

// IsConditionCurrent reports whether conditions has conditionType with
// status, observed at obj's current generation: a condition from an older
// spec does not count, which is how clients such as kubectl wait tell a
// stale Available from a fresh one.
func IsConditionCurrent(obj metav1.Object, conditions []metav1.Condition, conditionType string, status metav1.ConditionStatus) bool {
	c := meta.FindStatusCondition(conditions, conditionType)
	return c != nil && c.Status == status && c.ObservedGeneration == obj.GetGeneration()
}
