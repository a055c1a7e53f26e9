package deployment

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ResolveFenceposts turns a rolling update's maxSurge and maxUnavailable into
// replica counts for a Deployment that wants desired replicas, exactly as
// kube-controller-manager does.
//
// Percentages scale against desired: surge rounds up, unavailable rounds
// down. A nil value counts as 0. When both resolve to 0, unavailable becomes
// 1, because a rollout that may neither add nor remove a pod never ends.
//
// A string that is not "<digits>%" returns an error naming the field. Values
// the API server has rejected for years but that may sit in objects stored by
// older servers (negative numbers, results beyond an int32) are resolved the
// way upstream resolves them (negative stays negative, an overflow wraps), so
// that a cluster switching between upstream's controller and this one sees
// the same decisions.
func ResolveFenceposts(maxSurge, maxUnavailable *intstr.IntOrString, desired int32) (surge, unavailable int32, err error) {
	surge, err = scaledValue(orZero(maxSurge), desired, true)
	if err != nil {
		return 0, 0, fmt.Errorf("maxSurge: %w", err)
	}
	unavailable, err = scaledValue(orZero(maxUnavailable), desired, false)
	if err != nil {
		return 0, 0, fmt.Errorf("maxUnavailable: %w", err)
	}
	if surge == 0 && unavailable == 0 {
		unavailable = 1
	}
	return surge, unavailable, nil
}

func orZero(v *intstr.IntOrString) *intstr.IntOrString {
	if v == nil {
		zero := intstr.FromInt32(0)
		return &zero
	}
	return v
}

// scaledValue resolves an integer or a percentage of total with
// apimachinery's resolution, the one upstream uses, truncated to an int32 as
// upstream truncates it. A nil v is the error upstream reports
// ("nil value for IntOrString").
func scaledValue(v *intstr.IntOrString, total int32, roundUp bool) (int32, error) {
	value, err := intstr.GetScaledValueFromIntOrPercent(v, int(total), roundUp)
	if err != nil {
		return 0, err
	}
	return int32(value), nil
}

// isRollingUpdate reports whether d uses the RollingUpdate strategy.
func isRollingUpdate(d *appsv1.Deployment) bool {
	return d.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType
}

// specReplicas is d's spec.replicas; the API server defaults a missing value to 1.
func specReplicas(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// rsSpecReplicas is rs's spec.replicas; the API server defaults a missing value to 1.
func rsSpecReplicas(rs *appsv1.ReplicaSet) int32 {
	if rs.Spec.Replicas == nil {
		return 1
	}
	return *rs.Spec.Replicas
}

// fenceposts resolves d's rolling update parameters; ok is false for a
// Deployment that is not rolling or whose parameters are invalid.
func fenceposts(d *appsv1.Deployment) (surge, unavailable int32, ok bool) {
	if !isRollingUpdate(d) {
		return 0, 0, false
	}
	var ms, mu *intstr.IntOrString
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		ms, mu = ru.MaxSurge, ru.MaxUnavailable
	}
	surge, unavailable, err := ResolveFenceposts(ms, mu, specReplicas(d))
	if err != nil {
		// Like upstream, an invalid value counts as 0: validation keeps it out
		// of new objects, and the rollout must not wedge on old ones.
		return 0, 0, false
	}
	return surge, unavailable, true
}

// maxSurge is how many pods above spec.replicas a rolling update may run;
// 0 for any other strategy.
func maxSurge(d *appsv1.Deployment) int32 {
	surge, _, _ := fenceposts(d)
	return surge
}

// maxUnavailable is how many of spec.replicas a rolling update may lack;
// 0 for any other strategy or when spec.replicas is 0, and never more than
// spec.replicas.
func maxUnavailable(d *appsv1.Deployment) int32 {
	replicas := specReplicas(d)
	if replicas == 0 {
		return 0
	}
	_, unavailable, _ := fenceposts(d)
	return min(unavailable, replicas)
}

// minAvailable is how many pods a rolling update keeps available; 0 for any
// other strategy.
func minAvailable(d *appsv1.Deployment) int32 {
	if !isRollingUpdate(d) {
		return 0
	}
	return specReplicas(d) - maxUnavailable(d)
}
