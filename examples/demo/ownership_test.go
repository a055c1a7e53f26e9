package main

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestRenderOwnershipShowsOwnersHandoversAndWhoReconciled(t *testing.T) {
	rows := []shardRow{
		{Namespace: "alpha", Owners: []string{"replica-1"}, ReconciledBy: []string{"replica-1"}, Image: "nginx:1.28", Progress: "complete"},
		{Namespace: "bravo", Owners: nil, ReconciledBy: []string{"replica-0", "replica-2"}, Image: "nginx:1.27", Progress: "3/5 updated, 4 available, 2 old"},
		{Namespace: "charlie", Owners: []string{"replica-0", "replica-1"}, Progress: "not created"},
	}
	var b strings.Builder
	if err := renderOwnership(&b, rows); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"  NAMESPACE   OWNER                 RECONCILED BY         IMAGE        ROLLOUT\n" +
		"  alpha       replica-1             replica-1             nginx:1.28   complete\n" +
		"  bravo       (handover)            replica-0,replica-2   nginx:1.27   3/5 updated, 4 available, 2 old\n" +
		"  charlie     replica-0+replica-1   -                                  not created\n"
	if got := b.String(); got != want {
		t.Errorf("renderOwnership:\n%s\nwant:\n%s", got, want)
	}
}

// servesIn is a serves over fixed sets of namespaces.
func servesIn(sets map[string][]string) serves {
	s := serves{}
	for id, namespaces := range sets {
		s[id] = func(ns string) bool { return slices.Contains(namespaces, ns) }
	}
	return s
}

// ownersOf lists, sorted, the replicas that serve a namespace: one, none
// during a handover, or (a bug it would show) more.
func TestOwnersOfListsTheReplicasServingANamespace(t *testing.T) {
	s := servesIn(map[string][]string{"replica-1": {"alpha", "charlie"}, "replica-0": {"charlie", "delta"}, "replica-2": nil})
	for ns, want := range map[string][]string{"alpha": {"replica-1"}, "charlie": {"replica-0", "replica-1"}, "bravo": nil} {
		if got := ownersOf(ns, s); !slices.Equal(got, want) {
			t.Errorf("ownersOf(%s) = %v, want %v", ns, got, want)
		}
	}
}

func TestProgressOfIsTheRolloutInAFewWords(t *testing.T) {
	deployment := func(generation, observed int64, status appsv1.DeploymentStatus) *appsv1.Deployment {
		status.ObservedGeneration = observed
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: demoName, Generation: generation},
			Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](5)},
			Status:     status,
		}
	}
	tests := []struct {
		name     string
		d        *appsv1.Deployment
		want     string
		wantDone bool
	}{
		{"not created", nil, "not created", false},
		{"spec not observed", deployment(2, 1, appsv1.DeploymentStatus{Replicas: 5, UpdatedReplicas: 5, AvailableReplicas: 5}),
			"spec not observed yet", false},
		{"rolling", deployment(2, 2, appsv1.DeploymentStatus{Replicas: 7, UpdatedReplicas: 3, AvailableReplicas: 4}),
			"3/5 updated, 4 available, 4 old", false},
		{"not yet available", deployment(2, 2, appsv1.DeploymentStatus{Replicas: 5, UpdatedReplicas: 5, AvailableReplicas: 4}),
			"5/5 updated, 4 available", false},
		{"complete", deployment(2, 2, appsv1.DeploymentStatus{Replicas: 5, UpdatedReplicas: 5, AvailableReplicas: 5}),
			"complete", true},
		{"deadline exceeded", deployment(2, 2, appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentProgressing, Status: "False", Reason: "ProgressDeadlineExceeded"}}}),
			"progress deadline exceeded", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, done := progressOf(tt.d); got != tt.want || done != tt.wantDone {
				t.Errorf("progressOf = %q, %v; want %q, %v", got, done, tt.want, tt.wantDone)
			}
		})
	}
}

func TestRenderReplicasShowsEachReplicasNamespaces(t *testing.T) {
	s := servesIn(map[string][]string{"replica-0": {"delta", "echo", "kilo"}, "replica-1": {"alpha", "charlie"}, "replica-2": nil})
	var b strings.Builder
	if err := renderReplicas(&b, replicaRows(shardNamespaces[:6], s)); err != nil {
		t.Fatal(err)
	}
	// replica-2 is leaving: it serves nothing, and its namespaces
	// (bravo, foxtrot) are nobody's until the others take them over.
	want := "" +
		"  REPLICA     SHARE   NAMESPACES\n" +
		"  replica-0   2       delta, echo\n" +
		"  replica-1   2       alpha, charlie\n" +
		"  replica-2   0       -\n"
	if got := b.String(); got != want {
		t.Errorf("renderReplicas:\n%s\nwant:\n%s", got, want)
	}
}
