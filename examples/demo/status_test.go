package main

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestStatusOfFollowsKubectlRolloutStatus(t *testing.T) {
	deployment := func(generation, observed int64, status appsv1.DeploymentStatus) *appsv1.Deployment {
		status.ObservedGeneration = observed
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "demo", Generation: generation},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](5)},
			Status:     status,
		}
	}
	tests := []struct {
		name     string
		d        *appsv1.Deployment
		wantMsg  string
		wantDone bool
		wantErr  string
	}{
		{"spec not observed", deployment(2, 1, appsv1.DeploymentStatus{}),
			"Waiting for deployment spec update to be observed...", false, ""},
		{"updating", deployment(2, 2, appsv1.DeploymentStatus{Replicas: 7, UpdatedReplicas: 2}),
			`Waiting for deployment "demo" rollout to finish: 2 out of 5 new replicas have been updated...`, false, ""},
		{"old pending termination", deployment(2, 2, appsv1.DeploymentStatus{Replicas: 6, UpdatedReplicas: 5}),
			`Waiting for deployment "demo" rollout to finish: 1 old replicas are pending termination...`, false, ""},
		{"not yet available", deployment(2, 2, appsv1.DeploymentStatus{Replicas: 5, UpdatedReplicas: 5, AvailableReplicas: 3}),
			`Waiting for deployment "demo" rollout to finish: 3 of 5 updated replicas are available...`, false, ""},
		{"done", deployment(2, 2, appsv1.DeploymentStatus{Replicas: 5, UpdatedReplicas: 5, AvailableReplicas: 5}),
			`deployment "demo" successfully rolled out`, true, ""},
		{"deadline exceeded", deployment(2, 2, appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentProgressing, Status: "False", Reason: "ProgressDeadlineExceeded"}}}),
			"", false, "exceeded its progress deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, done, err := statusOf(tt.d)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || msg != tt.wantMsg || done != tt.wantDone {
				t.Errorf("statusOf = %q, %v, %v; want %q, %v, nil", msg, done, err, tt.wantMsg, tt.wantDone)
			}
		})
	}
}
