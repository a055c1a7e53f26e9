package deployment

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// Upstream: TestScaleDownOldReplicaSets.
func TestScaleDownOldReplicaSetsForRecreate(t *testing.T) {
	tests := []struct {
		name       string
		sizes      []int32
		wantScaled bool
		wantWrites []string
	}{
		{"all already empty", []int32{0, 0}, false, nil},
		{"one with pods", []int32{3, 0}, true, []string{"update replicasets foo-r0"}},
		{"both with pods", []int32{3, 1}, true, []string{"update replicasets foo-r0", "update replicasets foo-r1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := withRecreate(newDeployment("foo", 3))
			var rss []*appsv1.ReplicaSet
			for i, size := range tt.sizes {
				rs := newReplicaSet(d, "r"+string(rune('0'+i)), size, time.Duration(i)*time.Minute)
				rss = append(rss, rs)
				g.addServed(rs)
			}
			scaled, err := g.r.scaleDownOldReplicaSetsForRecreate(g.ctx(), rss, d)
			if err != nil {
				t.Fatal(err)
			}
			if scaled != tt.wantScaled {
				t.Errorf("scaled = %v, want %v", scaled, tt.wantScaled)
			}
			assertWrites(t, g.writes(), tt.wantWrites...)
			for name, size := range g.sizes() {
				if size != 0 {
					t.Errorf("%s scaled to %d, want 0", name, size)
				}
			}
			for _, rs := range rss {
				if *rs.Spec.Replicas != 0 && tt.wantScaled {
					// The slice holds the updated ReplicaSets.
					t.Errorf("%s still %d in the returned list", rs.Name, *rs.Spec.Replicas)
				}
			}
		})
	}
}

// A Recreate rollout, step by step through Reconcile: old ReplicaSet scaled
// to 0; no new ReplicaSet while an old pod runs (in any phase but Failed or
// Succeeded); then the new ReplicaSet is created at full size.
func TestRolloutRecreate(t *testing.T) {
	g := newSyncRig(t)
	d := withRecreate(newDeployment("foo", 3))
	d.Spec.ProgressDeadlineSeconds = nil
	oldRS := withStatus(withRevision(newReplicaSet(d, "v1", 3, -time.Hour), "1"), 3, 3, 3)
	setReplicasAnnotations(oldRS, 3, 3)
	withTemplateImage(d, "registry.example/app:v2")
	g.add(d, oldRS)
	newName := "foo-" + PodTemplateHash(&d.Spec.Template, nil)

	// Step 1: scale the old ReplicaSet down, nothing else.
	g.mustReconcile(d)
	assertWrites(t, g.writes(), "update replicasets foo-v1", "update deployments/status foo")
	assertEvents(t, g.events(), "Normal ScalingReplicaSet Scaled down replica set foo-v1 from 3 to 0")

	// Step 2: the old ReplicaSet is at 0 but reports pods: wait.
	emptied := oldRS.DeepCopy()
	emptied.Spec.Replicas = ptr.To[int32](0)
	g.addCached(emptied)
	g.client.ClearActions()
	g.mustReconcile(d)
	for _, w := range g.writes() {
		if w == "create replicasets "+newName {
			t.Fatal("new ReplicaSet created while the old one reports pods")
		}
	}

	// Step 3: status says 0, but pods remain in the cache: wait while any runs.
	emptied.Status = appsv1.ReplicaSetStatus{ObservedGeneration: emptied.Generation, TerminatingReplicas: ptr.To[int32](0)}
	g.addCached(emptied)
	for _, phase := range []corev1.PodPhase{corev1.PodRunning, corev1.PodPending, corev1.PodUnknown} {
		g.addCached(newPod(emptied, "old-pod", phase))
		g.client.ClearActions()
		g.mustReconcile(d)
		for _, w := range g.writes() {
			if w == "create replicasets "+newName {
				t.Fatalf("new ReplicaSet created while an old pod is %s", phase)
			}
		}
	}

	// Step 4: the only old pods left are finished: create the new ReplicaSet.
	g.addCached(newPod(emptied, "old-pod", corev1.PodSucceeded), newPod(emptied, "old-pod-2", corev1.PodFailed))
	g.client.ClearActions()
	g.mustReconcile(d)
	assertWrites(t, g.writes(), "create replicasets "+newName, "update deployments/status foo", "update deployments/status foo")
	assertEvents(t, g.events(), "Normal ScalingReplicaSet Scaled up replica set "+newName+" from 0 to 3")
}

// Pods of the new ReplicaSet never hold a Recreate rollout back.
func TestRolloutRecreateIgnoresNewPods(t *testing.T) {
	g := newSyncRig(t)
	d := withRecreate(newDeployment("foo", 3))
	d.Spec.ProgressDeadlineSeconds = nil
	newRS := withRevision(newReplicaSet(d, "v2", 1, 0), "1")
	setReplicasAnnotations(newRS, 3, 3)
	g.add(d, newRS, newPod(newRS, "new-pod", corev1.PodRunning))

	g.mustReconcile(d)
	if got := g.sizes()["foo-v2"]; got != 3 {
		t.Errorf("new ReplicaSet size %d, want 3 (writes %q)", got, g.writes())
	}
}
