package main

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// newDeployment is a Deployment as the API server would store it: defaulted
// fields set, two replicas, no history kept.
func newDeployment(name, image string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name + "-uid"), Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromString("25%")),
					MaxUnavailable: ptr.To(intstr.FromString("25%")),
				},
			},
			RevisionHistoryLimit:    ptr.To[int32](0),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

// newReplicaSet is a ReplicaSet of d's pods running image, fully available;
// owned by d unless orphan.
func newReplicaSet(d *appsv1.Deployment, suffix, image, revision string, replicas int32, orphan bool) *appsv1.ReplicaSet {
	labels := map[string]string{"pod-template-hash": suffix}
	for k, v := range d.Spec.Selector.MatchLabels {
		labels[k] = v
	}
	template := d.Spec.Template.DeepCopy()
	template.Labels = labels
	template.Spec.Containers[0].Image = image
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Namespace:   d.Namespace,
			Name:        d.Name + "-" + suffix,
			UID:         types.UID(d.Name + "-" + suffix + "-uid"),
			Labels:      labels,
			Annotations: map[string]string{"deployment.kubernetes.io/revision": revision},
			Generation:  1,
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: *template,
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas, FullyLabeledReplicas: replicas,
			ObservedGeneration: 1,
		},
	}
	if !orphan {
		rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	}
	return rs
}
