package deployment

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// A ReplicaSet update wakes its Deployment at low priority only when the
// rollout cannot have been unblocked by it.
func TestReplicaSetPriority(t *testing.T) {
	base := newReplicaSet(newDeployment("web", 3), "abc", 3, 1)
	base.Status = appsv1.ReplicaSetStatus{Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, TerminatingReplicas: ptr.To[int32](0)}
	for _, tc := range []struct {
		name   string
		change func(rs *appsv1.ReplicaSet)
		want   int
	}{
		{"a pod created", func(rs *appsv1.ReplicaSet) { rs.Status.Replicas++ }, workqueue.PriorityLow},
		{"a pod ready, not yet available", func(rs *appsv1.ReplicaSet) { rs.Status.ReadyReplicas++ }, workqueue.PriorityLow},
		{"observed generation", func(rs *appsv1.ReplicaSet) { rs.Status.ObservedGeneration++ }, workqueue.PriorityLow},
		{"a pod available", func(rs *appsv1.ReplicaSet) { rs.Status.AvailableReplicas++ }, workqueue.PriorityNormal},
		{"a pod gone", func(rs *appsv1.ReplicaSet) { rs.Status.Replicas-- }, workqueue.PriorityNormal},
		{"a pod terminating", func(rs *appsv1.ReplicaSet) { rs.Status.TerminatingReplicas = ptr.To[int32](1) }, workqueue.PriorityNormal},
		{"a condition", func(rs *appsv1.ReplicaSet) {
			rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure}}
		}, workqueue.PriorityNormal},
		{"scaled", func(rs *appsv1.ReplicaSet) { rs.Spec.Replicas = ptr.To[int32](4) }, workqueue.PriorityNormal},
		{"relabelled", func(rs *appsv1.ReplicaSet) { rs.Labels = map[string]string{"x": "y"} }, workqueue.PriorityNormal},
		{"annotated", func(rs *appsv1.ReplicaSet) { rs.Annotations = map[string]string{RevisionAnnotation: "9"} }, workqueue.PriorityNormal},
		{"released", func(rs *appsv1.ReplicaSet) { rs.OwnerReferences = nil }, workqueue.PriorityNormal},
		{"being deleted", func(rs *appsv1.ReplicaSet) { rs.DeletionTimestamp = &metav1.Time{} }, workqueue.PriorityNormal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base.DeepCopy()
			tc.change(cur)
			if got := replicaSetPriority(handler.Event{Type: handler.Update, OldObject: base, Object: cur}); got != tc.want {
				t.Errorf("priority = %d, want %d", got, tc.want)
			}
		})
	}
	for _, typ := range []handler.EventType{handler.Create, handler.Delete} {
		if got := replicaSetPriority(handler.Event{Type: typ, Object: base}); got != workqueue.PriorityNormal {
			t.Errorf("%v: priority = %d, want normal", typ, got)
		}
	}
}

// A Deployment's own status write comes back at low priority; any other
// change at normal.
func TestDeploymentPriority(t *testing.T) {
	base := newDeployment("web", 3)
	for _, tc := range []struct {
		name   string
		change func(d *appsv1.Deployment)
		want   int
	}{
		{"status", func(d *appsv1.Deployment) { d.Status.UpdatedReplicas = 2 }, workqueue.PriorityLow},
		{"spec", func(d *appsv1.Deployment) { d.Generation++ }, workqueue.PriorityNormal},
		{"annotations", func(d *appsv1.Deployment) { d.Annotations = map[string]string{RevisionAnnotation: "2"} }, workqueue.PriorityNormal},
		{"labels", func(d *appsv1.Deployment) { d.Labels = map[string]string{"x": "y"} }, workqueue.PriorityNormal},
		{"deletion", func(d *appsv1.Deployment) { d.DeletionTimestamp = &metav1.Time{} }, workqueue.PriorityNormal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cur := base.DeepCopy()
			tc.change(cur)
			if got := deploymentPriority(handler.Event{Type: handler.Update, OldObject: base, Object: cur}); got != tc.want {
				t.Errorf("priority = %d, want %d", got, tc.want)
			}
		})
	}
	if got := deploymentPriority(handler.Event{Type: handler.Create, Object: base}); got != workqueue.PriorityNormal {
		t.Errorf("create: priority = %d, want normal", got)
	}
}
