package deployment

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// withHashSelector gives d a selector that also has req on pod-template-hash,
// and template labels that the selector still matches (as API validation
// requires); label, if not empty, is the template's pod-template-hash.
func withHashSelector(d *appsv1.Deployment, req metav1.LabelSelectorRequirement, label string) *appsv1.Deployment {
	req.Key = appsv1.DefaultDeploymentUniqueLabelKey
	d.Spec.Selector.MatchExpressions = append(d.Spec.Selector.MatchExpressions, req)
	if label != "" {
		d.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = label
	}
	return d
}

func TestNewReplicaSetUnadoptable(t *testing.T) {
	pinned := newDeployment("foo", 1)
	pinned.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = "pinned"
	pinned.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "pinned"

	tests := []struct {
		name string
		d    *appsv1.Deployment
		want bool
	}{
		{"a selector without pod-template-hash", newDeployment("foo", 1), false},
		{"matchLabels pins pod-template-hash", pinned, true},
		{"In one value", withHashSelector(newDeployment("foo", 1),
			metav1.LabelSelectorRequirement{Operator: metav1.LabelSelectorOpIn, Values: []string{"pinned"}}, "pinned"), true},
		{"DoesNotExist", withHashSelector(newDeployment("foo", 1),
			metav1.LabelSelectorRequirement{Operator: metav1.LabelSelectorOpDoesNotExist}, ""), true},
		{"Exists", withHashSelector(newDeployment("foo", 1),
			metav1.LabelSelectorRequirement{Operator: metav1.LabelSelectorOpExists}, "any"), false},
		{"NotIn another value", withHashSelector(newDeployment("foo", 1),
			metav1.LabelSelectorRequirement{Operator: metav1.LabelSelectorOpNotIn, Values: []string{"other"}}, ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, hash, err := newReplicaSetUnadoptable(tt.d)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("unadoptable = %v, want %v", got, tt.want)
			}
			if got && hash != PodTemplateHash(&tt.d.Spec.Template, tt.d.Status.CollisionCount) {
				t.Errorf("hash = %q, want the template's", hash)
			}
		})
	}
}

// The pass that meets an unadoptable Deployment creates nothing, reports the
// condition once with one Warning event, and later passes write nothing.
func TestReconcileUnadoptableCreatesNothing(t *testing.T) {
	d := newDeployment("foo", 3)
	d.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = "pinned"
	d.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "pinned"

	g := newSyncRig(t)
	g.add(d)
	g.mustReconcile(d)

	assertWrites(t, g.writes(), "update deployments/status foo")
	events := g.events()
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning "+ReasonNewReplicaSetUnadoptable+" ") {
		t.Fatalf("events = %q, want one Warning %s", events, ReasonNewReplicaSetUnadoptable)
	}
	written := g.lastDeploymentWrite()
	cond := GetCondition(written.Status, appsv1.DeploymentReplicaFailure)
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != ReasonNewReplicaSetUnadoptable {
		t.Fatalf("ReplicaFailure = %+v, want True/%s", cond, ReasonNewReplicaSetUnadoptable)
	}
	if written.Status.ObservedGeneration != d.Generation {
		t.Errorf("observedGeneration = %d, want %d", written.Status.ObservedGeneration, d.Generation)
	}

	// The next passes see the written status: nothing more to say.
	again := newSyncRig(t)
	again.add(written)
	for range 3 {
		again.mustReconcile(written)
	}
	assertWrites(t, again.writes())
	assertEvents(t, again.events())

	// A spec change (a new generation) only brings observedGeneration up.
	changed := withTemplateImage(written.DeepCopy(), "registry.example/app:v2")
	changed.Generation++
	third := newSyncRig(t)
	third.add(changed)
	third.mustReconcile(changed)
	assertWrites(t, third.writes(), "update deployments/status foo")
	assertEvents(t, third.events())
}

// A selector that names pod-template-hash but still selects the new
// ReplicaSet takes upstream's path.
func TestReconcileHashSelectorThatMatchesRollsOut(t *testing.T) {
	d := withHashSelector(newDeployment("foo", 1),
		metav1.LabelSelectorRequirement{Operator: metav1.LabelSelectorOpExists}, "any")
	g := newSyncRig(t)
	g.add(d)
	g.mustReconcile(d)

	name := "foo-" + PodTemplateHash(&d.Spec.Template, nil)
	assertWrites(t, g.writes(), "create replicasets "+name, "update deployments/status foo", "update deployments/status foo")
}
