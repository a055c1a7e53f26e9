package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
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

// ownersOf agrees with the shard selector the API server applies: a
// namespace's Deployment is matched by the selector of its owner's range
// only.
func TestOwnersOfAgreesWithTheServersShardSelector(t *testing.T) {
	ranges := sharding.Assign(3)
	serving := map[string]sharding.Ranges{}
	for i, r := range ranges {
		serving[fmt.Sprintf("replica-%d", i)] = sharding.NewRanges(r)
	}
	for _, ns := range shardNamespaces {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: demoName}}
		var matched []string
		for id, r := range serving {
			ok, err := r.Selector(sharding.NamespaceField).Matches(d)
			if err != nil {
				t.Fatalf("%s: selector of %s: %v", ns, id, err)
			}
			if ok {
				matched = append(matched, id)
			}
		}
		slices.Sort(matched)
		got := ownersOf(ns, serving)
		if len(got) != 1 || !slices.Equal(got, matched) {
			t.Errorf("ownersOf(%s) = %v; the server's selectors match %v", ns, got, matched)
		}
	}
	if got := ownersOf("alpha", map[string]sharding.Ranges{"replica-0": nil}); got != nil {
		t.Errorf("ownersOf with nothing served = %v, want none", got)
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

func TestRenderReplicasShowsEachReplicasRangeAndNamespaces(t *testing.T) {
	ranges := sharding.Assign(3)
	serving := map[string]sharding.Ranges{"replica-0": sharding.NewRanges(ranges[0]), "replica-1": sharding.NewRanges(ranges[1]), "replica-2": nil}
	var b strings.Builder
	if err := renderReplicas(&b, replicaRows(shardNamespaces[:6], serving)); err != nil {
		t.Fatal(err)
	}
	// replica-2 is leaving: it serves nothing, and its namespaces
	// (bravo, foxtrot) are nobody's until the others take them over.
	want := "" +
		"  REPLICA     SERVES                                     SHARE   NAMESPACES\n" +
		"  replica-0   [0x0000000000000000, 0x5555555555555555)   33.3%   delta, echo\n" +
		"  replica-1   [0x5555555555555555, 0xaaaaaaaaaaaaaaaa)   33.3%   alpha, charlie\n" +
		"  replica-2   [)                                         0.0%    -\n"
	if got := b.String(); got != want {
		t.Errorf("renderReplicas:\n%s\nwant:\n%s", got, want)
	}
}
