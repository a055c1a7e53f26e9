package deployment

import (
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// Upstream: TestGetPodMapForReplicaSets. Pods are found by their controller
// reference: every listed ReplicaSet gets an entry; terminating and finished
// pods count; pods of other owners, orphans and pods of a same-named
// ReplicaSet with another UID do not.
func TestPodsByReplicaSet(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 2)
	rs1 := newReplicaSet(d, "a", 2, 0)
	rs2 := newReplicaSet(d, "b", 0, 0)

	running := newPod(rs1, "running", corev1.PodRunning)
	terminating := newPod(rs1, "terminating", corev1.PodRunning)
	terminating.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
	finished := newPod(rs1, "finished", corev1.PodSucceeded)
	orphanPod := newPod(rs1, "orphan", corev1.PodRunning)
	orphanPod.OwnerReferences = nil
	impostorRS := rs1.DeepCopy()
	impostorRS.UID = "another-uid"
	impostor := newPod(impostorRS, "impostor", corev1.PodRunning)
	elsewhere := newPod(rs1, "elsewhere", corev1.PodRunning)
	elsewhere.Namespace = "other"
	g.addCached(running, terminating, finished, orphanPod, impostor, elsewhere)

	podMap, err := g.r.podsByReplicaSet(d, []*appsv1.ReplicaSet{rs1, rs2})
	if err != nil {
		t.Fatal(err)
	}
	if len(podMap) != 2 {
		t.Fatalf("%d entries, want one per ReplicaSet", len(podMap))
	}
	podNames := func(uid types.UID) []string {
		var out []string
		for _, p := range podMap[uid] {
			out = append(out, p.Name)
		}
		slices.Sort(out)
		return out
	}
	if got, want := podNames(rs1.UID), []string{"finished", "running", "terminating"}; !slices.Equal(got, want) {
		t.Errorf("pods of %s: %v, want %v", rs1.Name, got, want)
	}
	if pods, ok := podMap[rs2.UID]; !ok || len(pods) != 0 {
		t.Errorf("pods of %s: %v (present %v), want an empty entry", rs2.Name, pods, ok)
	}
}

func TestPodsByReplicaSetRejectsIncompleteOwners(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 2)
	rs := newReplicaSet(d, "a", 2, 0)
	rs.UID = ""
	if _, err := g.r.podsByReplicaSet(d, []*appsv1.ReplicaSet{rs}); err == nil {
		t.Error("want an error for a ReplicaSet without a UID")
	}
}

// Upstream: BenchmarkGetPodMapForDeployment. The lookup goes through the
// controller index, so other pods in the namespace ("noise") cost nothing.
func BenchmarkPodsByReplicaSet(b *testing.B) {
	for _, bc := range []struct{ pods, noise int }{{10, 0}, {10, 10000}, {1000, 0}, {1000, 10000}} {
		b.Run(fmt.Sprintf("pods=%d/noise=%d", bc.pods, bc.noise), func(b *testing.B) {
			g := newSyncRig(b)
			d := newDeployment("foo", int32(bc.pods))
			rs := newReplicaSet(d, "a", int32(bc.pods), 0)
			other := newReplicaSet(newDeployment("bar", 1), "b", 1, 0)
			for i := 0; i < bc.pods; i++ {
				g.addCached(newPod(rs, fmt.Sprintf("p%d", i), corev1.PodRunning))
			}
			for i := 0; i < bc.noise; i++ {
				g.addCached(newPod(other, fmt.Sprintf("n%d", i), corev1.PodRunning))
			}
			rss := []*appsv1.ReplicaSet{rs}
			b.ReportAllocs()
			for b.Loop() {
				m, err := g.r.podsByReplicaSet(d, rss)
				if err != nil || len(m[rs.UID]) != bc.pods {
					b.Fatalf("got %d pods, %v", len(m[rs.UID]), err)
				}
			}
		})
	}
}
