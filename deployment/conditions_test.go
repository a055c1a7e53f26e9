package deployment

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestGetCondition(t *testing.T) {
	status := appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
		progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, testEpoch),
	}}
	got := GetCondition(status, appsv1.DeploymentProgressing)
	if got == nil || got.Reason != ReasonReplicaSetUpdated {
		t.Fatalf("GetCondition(Progressing) = %+v, want the ReplicaSetUpdated condition", got)
	}
	got.Reason = "Mutated"
	if status.Conditions[0].Reason != ReasonReplicaSetUpdated {
		t.Error("GetCondition returned a pointer into the status; want a copy")
	}
	if c := GetCondition(status, appsv1.DeploymentAvailable); c != nil {
		t.Errorf("GetCondition(Available) = %+v, want nil", c)
	}
	if c := GetCondition(appsv1.DeploymentStatus{}, appsv1.DeploymentAvailable); c != nil {
		t.Errorf("GetCondition on an empty status = %+v, want nil", c)
	}
}

func TestSetDeploymentCondition(t *testing.T) {
	earlier, later := testEpoch, testEpoch.Add(time.Hour)
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: ReasonMinimumReplicasAvailable}
	tests := []struct {
		name    string
		current []appsv1.DeploymentCondition
		set     appsv1.DeploymentCondition
		want    []appsv1.DeploymentCondition
	}{
		{
			name: "added when missing",
			set:  newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonReplicaSetUpdated, "m", later),
			want: []appsv1.DeploymentCondition{newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonReplicaSetUpdated, "m", later)},
		},
		{
			name:    "same status and reason changes nothing, not even message or times",
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, earlier), available},
			set:     newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonReplicaSetUpdated, "new message", later),
			want:    []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, earlier), available},
		},
		{
			name:    "same status, new reason: lastTransitionTime kept, moved to the end",
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, earlier), available},
			set:     newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue, ReasonNewReplicaSetAvailable, "done", later),
			want: []appsv1.DeploymentCondition{available, {
				Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: ReasonNewReplicaSetAvailable, Message: "done",
				LastUpdateTime: metav1.NewTime(later), LastTransitionTime: metav1.NewTime(earlier),
			}},
		},
		{
			name:    "new status: replaced whole",
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, earlier)},
			set:     newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonProgressDeadlineExceeded, "late", later),
			want:    []appsv1.DeploymentCondition{newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse, ReasonProgressDeadlineExceeded, "late", later)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status := appsv1.DeploymentStatus{Conditions: tt.current}
			setDeploymentCondition(&status, tt.set)
			if diff := cmp.Diff(tt.want, status.Conditions); diff != "" {
				t.Errorf("conditions (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRemoveDeploymentCondition(t *testing.T) {
	available := appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue}
	progressing := progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, testEpoch)
	original := []appsv1.DeploymentCondition{progressing, available}
	status := appsv1.DeploymentStatus{Conditions: original}

	removeDeploymentCondition(&status, appsv1.DeploymentProgressing)
	if diff := cmp.Diff([]appsv1.DeploymentCondition{available}, status.Conditions); diff != "" {
		t.Errorf("after removing Progressing (-want +got):\n%s", diff)
	}
	if original[0].Type != appsv1.DeploymentProgressing {
		t.Error("removeDeploymentCondition wrote into the original slice")
	}
	removeDeploymentCondition(&status, appsv1.DeploymentReplicaFailure)
	if len(status.Conditions) != 1 {
		t.Errorf("removing a missing type changed the conditions: %+v", status.Conditions)
	}
	removeDeploymentCondition(&status, appsv1.DeploymentAvailable)
	if status.Conditions != nil {
		t.Errorf("removing the last condition left %#v, want nil", status.Conditions)
	}
}

func TestReplicaFailureCondition(t *testing.T) {
	at := metav1.NewTime(testEpoch)
	failure := func(msg string) appsv1.ReplicaSetCondition {
		return appsv1.ReplicaSetCondition{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: msg, LastTransitionTime: at}
	}
	d := newDeployment("web", 3)
	newRS := newReplicaSet(d, "new", 3, time.Minute)
	oldRS := newReplicaSet(withTemplateImage(newDeployment("web", 3), "v0"), "old", 1, 0)
	other := appsv1.ReplicaSetCondition{Type: "SomethingElse", Status: corev1.ConditionTrue}

	if c := replicaFailureCondition([]*appsv1.ReplicaSet{oldRS, newRS, nil}, newRS); c != nil {
		t.Errorf("no failures: got %+v, want nil", c)
	}

	oldRS.Status.Conditions = []appsv1.ReplicaSetCondition{other, failure("old is failing")}
	got := replicaFailureCondition([]*appsv1.ReplicaSet{oldRS, newRS}, newRS)
	want := &appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
		Message: "old is failing", LastUpdateTime: at, LastTransitionTime: at}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failure of an old ReplicaSet (-want +got):\n%s", diff)
	}

	newRS.Status.Conditions = []appsv1.ReplicaSetCondition{failure("new is failing"), failure("second one ignored")}
	if got := replicaFailureCondition([]*appsv1.ReplicaSet{oldRS, newRS}, newRS); got == nil || got.Message != "new is failing" {
		t.Errorf("the new ReplicaSet's first failure must win; got %+v", got)
	}
	if got := replicaFailureCondition([]*appsv1.ReplicaSet{oldRS}, nil); got == nil || got.Message != "old is failing" {
		t.Errorf("without a new ReplicaSet: got %+v, want the old one's failure", got)
	}
}
