package deployment

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

func TestPodControllerIndex(t *testing.T) {
	d := newDeployment("web", 1)
	rs := newReplicaSet(d, "abc", 1, 0)
	owned := newPod(rs, "p1", corev1.PodRunning)
	orphan := newPod(rs, "p2", corev1.PodRunning)
	orphan.OwnerReferences = nil
	notController := newPod(rs, "p3", corev1.PodRunning)
	notController.OwnerReferences[0].Controller = nil

	tests := []struct {
		name string
		obj  any
		want []string
	}{
		{name: "controlled pod", obj: owned, want: []string{"default/ReplicaSet/web-abc/uid-web-abc"}},
		{name: "orphan pod: its namespace", obj: orphan, want: []string{"default"}},
		{name: "owner that is not the controller: orphan", obj: notController, want: []string{"default"}},
		{name: "not a pod", obj: rs, want: nil},
		{name: "tombstone is not indexed", obj: cache.DeletedFinalStateUnknown{Key: "default/p1", Obj: owned}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PodControllerIndex(tt.obj)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PodControllerIndex (-want +got):\n%s", diff)
			}
		})
	}
	if got, want := replicaSetPodsKey(rs), PodControllerIndexKey("default", "ReplicaSet", "web-abc", rs.UID); got != want {
		t.Errorf("replicaSetPodsKey() = %q, want %q", got, want)
	}
}

func TestPodsOfReplicaSet(t *testing.T) {
	d := newDeployment("web", 1)
	rs := newReplicaSet(d, "abc", 3, 0)
	// Same name, other UID: the pods of a deleted and re-created ReplicaSet.
	impostor := newReplicaSet(d, "abc", 1, 0)
	impostor.UID = "uid-other"
	other := newReplicaSet(d, "xyz", 1, 0)

	running := newPod(rs, "running", corev1.PodRunning)
	finished := newPod(rs, "finished", corev1.PodSucceeded)
	terminating := newPod(rs, "terminating", corev1.PodRunning)
	terminating.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch.Add(time.Minute)))
	ofImpostor := newPod(impostor, "impostor", corev1.PodRunning)
	ofOther := newPod(other, "other", corev1.PodRunning)
	inOtherNamespace := newPod(rs, "elsewhere", corev1.PodRunning)
	inOtherNamespace.Namespace = "other"

	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{PodControllerIndexName: PodControllerIndex})
	for _, p := range []*corev1.Pod{running, finished, terminating, ofImpostor, ofOther, inOtherNamespace} {
		if err := indexer.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	pods, err := podsOfReplicaSet(indexer, rs)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range pods {
		got = append(got, p.Name)
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"finished", "running", "terminating"}, got); diff != "" {
		t.Errorf("pods of the ReplicaSet (-want +got):\n%s", diff)
	}

	bare := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if _, err := podsOfReplicaSet(bare, rs); err == nil {
		t.Error("podsOfReplicaSet on an indexer without the index: want an error")
	}
}

func TestAddPodControllerIndex(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	podInformer := factory.Core().V1().Pods().Informer()
	if err := AddPodControllerIndex(podInformer); err != nil {
		t.Fatal(err)
	}
	if err := AddPodControllerIndex(podInformer); err != nil {
		t.Errorf("adding the index twice: %v, want nil (already there)", err)
	}
	if _, ok := podInformer.GetIndexer().GetIndexers()[PodControllerIndexName]; !ok {
		t.Errorf("index %q missing", PodControllerIndexName)
	}
	rs := newReplicaSet(newDeployment("web", 1), "abc", 1, 0)
	if err := podInformer.GetIndexer().Add(newPod(rs, "p", corev1.PodRunning)); err != nil {
		t.Fatal(err)
	}
	if pods, err := podsOfReplicaSet(podInformer.GetIndexer(), rs); err != nil || len(pods) != 1 {
		t.Errorf("podsOfReplicaSet through the informer's indexer = %d pods, %v; want 1", len(pods), err)
	}
}
