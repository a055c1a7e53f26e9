package deployment

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// TrimPod is a cache.TransformFunc for a pod informer that only the
// Deployment controller reads. Of a pod it keeps what the controller and
// the informer machinery read: namespace, name, UID, resourceVersion,
// generation, creation and deletion times, finalizers, owner references
// (the PodControllerIndex and the Recreate strategy's deletion events go
// by the controller reference) and status.phase (a Recreate rollout waits
// for old pods to stop running). Spec, the rest of status, labels,
// annotations and managedFields are dropped. Other objects, and tombstones
// of other objects, pass through unchanged.
//
// Pods are most of the controller's cache, each decoded from the API in
// full (spec, conditions, container statuses, tolerations) on every
// update. Trimmed, a cached pod is its Pod struct and a few strings; the
// rest is garbage as soon as the event is handled. That matters beyond
// the live size: after a burst of pod updates the cached versions lie
// scattered among the spans of the versions they replaced, and an idle
// process keeps every span that holds one of them; the fewer and smaller
// the objects a pod keeps, the fewer such spans.
//
// Do not use it on an informer other code reads pods from (a factory
// shared with other controllers): they would see pods without spec.
//
//	informers.WithTransform(func(obj any) (any, error) {
//		obj, err := handler.StripManagedFields(obj)
//		if err != nil {
//			return nil, err
//		}
//		return deployment.TrimPod(obj)
//	})
func TrimPod(obj any) (any, error) {
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		trimmed, err := TrimPod(tombstone.Obj)
		if err != nil {
			return nil, err
		}
		tombstone.Obj = trimmed
		return tombstone, nil
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	m := &pod.ObjectMeta
	refs := m.OwnerReferences
	for i := range refs {
		refs[i].APIVersion, refs[i].Kind = internOwnerType(refs[i].APIVersion, refs[i].Kind)
	}
	pod.ObjectMeta = metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: m.UID, ResourceVersion: m.ResourceVersion, Generation: m.Generation,
		CreationTimestamp: m.CreationTimestamp, DeletionTimestamp: m.DeletionTimestamp,
		DeletionGracePeriodSeconds: m.DeletionGracePeriodSeconds, Finalizers: m.Finalizers, OwnerReferences: refs,
	}
	pod.Spec = corev1.PodSpec{}
	pod.Status = corev1.PodStatus{Phase: internPhase(pod.Status.Phase)}
	return pod, nil
}

// The interned strings below replace copies every decoded pod carries:
// each copy is a small allocation of its own, kept for as long as the pod
// is cached, that pins the memory around it. Strings are immutable, so
// sharing them is safe.

var podPhases = []corev1.PodPhase{corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown}

func internPhase(p corev1.PodPhase) corev1.PodPhase {
	for _, known := range podPhases {
		if p == known {
			return known
		}
	}
	return p
}

func internOwnerType(apiVersion, kind string) (string, string) {
	if apiVersion == "apps/v1" && kind == "ReplicaSet" {
		return "apps/v1", "ReplicaSet"
	}
	return apiVersion, kind
}
