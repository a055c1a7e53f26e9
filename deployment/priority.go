package deployment

import (
	"reflect"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// The queue hands out first the Deployments whose last event may let them
// progress. An event that cannot (a Deployment's own status write coming
// back, a ReplicaSet that gained a pod not yet available) wakes its
// Deployment at workqueue.PriorityLow: while workers are busy it waits,
// and the later event that matters (the pod became available) raises it,
// so one pass handles both and writes the status once. Every key is still
// synced, upstream's way, from the state its pass reads; only the order of
// waiting keys differs.

// deploymentPriority is low for an update that changed only the status,
// which only a Deployment controller writes.
func deploymentPriority(ev handler.Event) int {
	if ev.Type == handler.Update && metadataUnchanged(ev.OldObject, ev.Object) {
		return workqueue.PriorityLow
	}
	return workqueue.PriorityNormal
}

// replicaSetPriority is low for a ReplicaSet update that changed neither
// its metadata nor its spec, and in its status neither the available or
// terminating replicas, nor the conditions, nor lowered its replicas:
// a rollout waits on pods becoming available or going away.
func replicaSetPriority(ev handler.Event) int {
	if ev.Type != handler.Update {
		return workqueue.PriorityNormal
	}
	old, okOld := ev.OldObject.(*appsv1.ReplicaSet)
	cur, okCur := ev.Object.(*appsv1.ReplicaSet)
	if !okOld || !okCur || !metadataUnchanged(old, cur) || !reflect.DeepEqual(old.Spec, cur.Spec) {
		return workqueue.PriorityNormal
	}
	o, c := old.Status, cur.Status
	if c.AvailableReplicas != o.AvailableReplicas || c.Replicas < o.Replicas ||
		!reflect.DeepEqual(c.TerminatingReplicas, o.TerminatingReplicas) || !reflect.DeepEqual(c.Conditions, o.Conditions) {
		return workqueue.PriorityNormal
	}
	return workqueue.PriorityLow
}

// metadataUnchanged reports whether an update left everything a
// Deployment's sync reads from metadata as it was: the generation (so the
// spec), labels, annotations, owners and deletion.
func metadataUnchanged(old, cur metav1.Object) bool {
	return old.GetGeneration() == cur.GetGeneration() &&
		reflect.DeepEqual(old.GetLabels(), cur.GetLabels()) &&
		reflect.DeepEqual(old.GetAnnotations(), cur.GetAnnotations()) &&
		reflect.DeepEqual(old.GetOwnerReferences(), cur.GetOwnerReferences()) &&
		reflect.DeepEqual(old.GetDeletionTimestamp(), cur.GetDeletionTimestamp())
}
