package deployment

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// fullPod is a pod as the API returns it: spec, status and metadata the
// controller never reads.
func fullPod() *corev1.Pod {
	d := newDeployment("web", 1)
	rs := newReplicaSet(d, "abc", 1, 0)
	pod := newPod(rs, "p1", corev1.PodRunning)
	pod.GenerateName = "web-abc-"
	pod.ResourceVersion = "42"
	pod.Finalizers = []string{"example.com/keep"}
	pod.DeletionTimestamp = ptr.To(metav1.Unix(100, 0))
	pod.Annotations = map[string]string{"note": "big"}
	pod.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}
	pod.Spec = corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "app", Image: "app:v1"}},
		Tolerations: []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists}}}
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true}}
	pod.Status.PodIP = "10.0.0.1"
	return pod
}

func TestTrimPodKeepsWhatTheControllerReads(t *testing.T) {
	pod := fullPod()
	want := &corev1.Pod{
		TypeMeta: pod.TypeMeta,
		ObjectMeta: metav1.ObjectMeta{
			Name: pod.Name, Namespace: pod.Namespace, UID: pod.UID, ResourceVersion: "42",
			CreationTimestamp: pod.CreationTimestamp, DeletionTimestamp: pod.DeletionTimestamp,
			Finalizers: []string{"example.com/keep"}, OwnerReferences: pod.OwnerReferences,
		},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	want = want.DeepCopy()
	indexBefore, _ := PodControllerIndex(pod)

	got, err := TrimPod(pod)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("TrimPod (-want +got):\n%s", diff)
	}
	// The controller index files the trimmed pod where it filed the full one.
	if indexAfter, _ := PodControllerIndex(got); !cmp.Equal(indexBefore, indexAfter) {
		t.Errorf("PodControllerIndex: %v before trimming, %v after", indexBefore, indexAfter)
	}
	// A Recreate rollout still sees it running.
	rsUID := pod.OwnerReferences[0].UID
	if !oldPodsRunning(nil, nil, map[types.UID][]*corev1.Pod{rsUID: {got.(*corev1.Pod)}}) {
		t.Error("oldPodsRunning: a trimmed running pod does not count as running")
	}
}

func TestTrimPodTombstonesAndOtherObjects(t *testing.T) {
	tombstone := cache.DeletedFinalStateUnknown{Key: "default/p1", Obj: fullPod()}
	got, err := TrimPod(tombstone)
	if err != nil {
		t.Fatal(err)
	}
	trimmed := got.(cache.DeletedFinalStateUnknown)
	if pod := trimmed.Obj.(*corev1.Pod); trimmed.Key != "default/p1" || pod.Spec.NodeName != "" || pod.Status.Phase != corev1.PodRunning {
		t.Errorf("tombstone: key %q, pod %+v; want the key kept and the pod trimmed", trimmed.Key, pod)
	}
	rs := newReplicaSet(newDeployment("web", 1), "abc", 1, 0)
	before := rs.DeepCopy()
	if got, err := TrimPod(rs); err != nil || !cmp.Equal(got, before) {
		t.Errorf("TrimPod(ReplicaSet) = %v, %v; want it unchanged", got, err)
	}
	if got, err := TrimPod(cache.DeletedFinalStateUnknown{Key: "k", Obj: "x"}); err != nil || got.(cache.DeletedFinalStateUnknown).Obj != "x" {
		t.Errorf("TrimPod(tombstone of a string) = %v, %v", got, err)
	}
}
