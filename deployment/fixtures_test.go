package deployment

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Shared test builders. They return objects as the API server would store
// them (defaults filled in), so tests only state what matters to them.

// testNamespace is the namespace of every fixture.
const testNamespace = "default"

// testEpoch is a fixed instant tests measure time from.
var testEpoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newDeployment returns a RollingUpdate Deployment (25% / 25%, deadline 600 s,
// history 10) selecting app=<name>, at generation 1 with nothing observed.
func newDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         testNamespace,
			Name:              name,
			UID:               types.UID("uid-" + name),
			Generation:        1,
			ResourceVersion:   "1",
			CreationTimestamp: metav1.NewTime(testEpoch),
		},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:v1"}},
				},
			},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromString("25%")),
					MaxUnavailable: ptr.To(intstr.FromString("25%")),
				},
			},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

// withRolling sets d's rolling update parameters; nil leaves a value unset.
func withRolling(d *appsv1.Deployment, surge, unavailable *intstr.IntOrString) *appsv1.Deployment {
	d.Spec.Strategy = appsv1.DeploymentStrategy{
		Type:          appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: surge, MaxUnavailable: unavailable},
	}
	return d
}

// withRecreate switches d to the Recreate strategy.
func withRecreate(d *appsv1.Deployment) *appsv1.Deployment {
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	return d
}

// intOrStr is shorthand for a *intstr.IntOrString: an int, or a string such as "25%".
func intOrStr[T int | string](v T) *intstr.IntOrString {
	switch v := any(v).(type) {
	case int:
		return ptr.To(intstr.FromInt(v))
	default:
		return ptr.To(intstr.FromString(v.(string)))
	}
}

// newReplicaSet returns a ReplicaSet controlled by d, running d's current
// template under the given hash, of size replicas with no pods reported yet,
// created createdAfter past testEpoch.
func newReplicaSet(d *appsv1.Deployment, hash string, replicas int32, createdAfter time.Duration) *appsv1.ReplicaSet {
	template := *d.Spec.Template.DeepCopy()
	if template.Labels == nil {
		template.Labels = map[string]string{}
	}
	template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	selector := d.Spec.Selector.DeepCopy()
	if selector.MatchLabels == nil {
		selector.MatchLabels = map[string]string{}
	}
	selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	name := d.Name + "-" + hash
	return &appsv1.ReplicaSet{
		TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:         d.Namespace,
			Name:              name,
			UID:               types.UID("uid-" + name),
			Generation:        1,
			ResourceVersion:   "1",
			CreationTimestamp: metav1.NewTime(testEpoch.Add(createdAfter)),
			Labels:            template.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d,
				appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: selector,
			Template: template,
		},
	}
}

// withStatus sets rs's reported pods: replicas in total, ready and available
// of them; the ReplicaSet counts as synced (observedGeneration = generation,
// terminatingReplicas 0).
func withStatus(rs *appsv1.ReplicaSet, replicas, ready, available int32) *appsv1.ReplicaSet {
	rs.Status = appsv1.ReplicaSetStatus{
		Replicas:             replicas,
		FullyLabeledReplicas: replicas,
		ReadyReplicas:        ready,
		AvailableReplicas:    available,
		TerminatingReplicas:  ptr.To[int32](0),
		ObservedGeneration:   rs.Generation,
	}
	return rs
}

// withRevision sets rs's revision annotation.
func withRevision(rs *appsv1.ReplicaSet, revision string) *appsv1.ReplicaSet {
	if rs.Annotations == nil {
		rs.Annotations = map[string]string{}
	}
	rs.Annotations[RevisionAnnotation] = revision
	return rs
}

// withTemplateImage changes the image of the first container of d's template,
// making it a different rollout target.
func withTemplateImage(d *appsv1.Deployment, image string) *appsv1.Deployment {
	d.Spec.Template.Spec.Containers[0].Image = image
	return d
}

// newPod returns a pod controlled by rs in the given phase.
func newPod(rs *appsv1.ReplicaSet, name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Namespace:       rs.Namespace,
			Name:            name,
			UID:             types.UID("uid-" + name),
			ResourceVersion: "1",
			Labels:          rs.Spec.Template.Labels,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs,
				appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))},
		},
		Spec:   rs.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: phase},
	}
}

// progressingCondition is a Progressing condition last updated and
// transitioned at the given time.
func progressingCondition(status corev1.ConditionStatus, reason string, at time.Time) appsv1.DeploymentCondition {
	return appsv1.DeploymentCondition{
		Type:               appsv1.DeploymentProgressing,
		Status:             status,
		Reason:             reason,
		Message:            "set by the test",
		LastUpdateTime:     metav1.NewTime(at),
		LastTransitionTime: metav1.NewTime(at),
	}
}
