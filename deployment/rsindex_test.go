package deployment

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func TestReplicaSetControllerIndex(t *testing.T) {
	d := newDeployment("web", 1)
	owned := newReplicaSet(d, "abc", 1, 0)
	tests := []struct {
		name string
		obj  any
		want []string
	}{
		{"controlled", owned, []string{testNamespace + "/" + string(d.UID)}},
		{"orphan", orphan(newReplicaSet(d, "def", 1, 0)), []string{testNamespace}},
		{"owner that is not the controller", func() *appsv1.ReplicaSet {
			rs := newReplicaSet(d, "ghi", 1, 0)
			rs.OwnerReferences[0].Controller = ptr.To(false)
			return rs
		}(), []string{testNamespace}},
		{"not a ReplicaSet", &corev1.Pod{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReplicaSetControllerIndex(tt.obj)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("ReplicaSetControllerIndex = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func TestAddReplicaSetControllerIndex(t *testing.T) {
	factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
	rsInformer := factory.Apps().V1().ReplicaSets().Informer()
	if err := AddReplicaSetControllerIndex(rsInformer); err != nil {
		t.Fatal(err)
	}
	if err := AddReplicaSetControllerIndex(rsInformer); err != nil {
		t.Errorf("adding the index twice: %v, want nil (already there)", err)
	}
	if _, ok := rsInformer.GetIndexer().GetIndexers()[ReplicaSetControllerIndexName]; !ok {
		t.Errorf("index %q missing", ReplicaSetControllerIndexName)
	}
}

// With the index a pass reads fewer ReplicaSets, but claims, adopts and
// releases exactly what a scan of the namespace does.
func TestClaimWithIndexMatchesScan(t *testing.T) {
	world := func() []*appsv1.ReplicaSet {
		d := newDeployment("foo", 1)
		other := newDeployment("bar", 1)
		kept := newReplicaSet(d, "kept", 1, 0)
		others := newReplicaSet(other, "others", 1, 0)
		others.Labels = kept.Labels // selected by foo too, but bar's
		rss := []*appsv1.ReplicaSet{kept, orphan(newReplicaSet(d, "adopt", 1, 0)), others}
		released := newReplicaSet(d, "release", 1, 0)
		released.Labels = map[string]string{"app": "other"}
		unmatched := orphan(newReplicaSet(d, "unmatched", 1, 0))
		unmatched.Labels = map[string]string{"app": "other"}
		dying := orphan(newReplicaSet(d, "dying", 1, 0))
		dying.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
		notController := newReplicaSet(d, "owner-not-controller", 1, 0)
		notController.OwnerReferences[0].Controller = ptr.To(false)
		elsewhere := orphan(newReplicaSet(d, "elsewhere", 1, 0))
		elsewhere.Namespace = "other-namespace"
		rss = append(rss, released, unmatched, dying, notController, elsewhere)
		for i := range 20 { // the namespace's other Deployments' ReplicaSets
			rss = append(rss, newReplicaSet(newDeployment(fmt.Sprintf("d%02d", i), 1), "x", 1, 0))
		}
		return rss
	}
	run := func(configure ...func(*Config)) (claimed, writes []string) {
		g := newSyncRig(t, configure...)
		d := newDeployment("foo", 1)
		g.add(d)
		for _, rs := range world() {
			g.add(rs)
		}
		got, err := g.r.claimReplicaSets(g.ctx(), d)
		if err != nil {
			t.Fatal(err)
		}
		return names(got), g.writes()
	}
	indexClaimed, indexWrites := run()
	scanClaimed, scanWrites := run(func(c *Config) { c.ReplicaSetIndex = nil })
	if want := []string{"foo-adopt", "foo-kept", "foo-owner-not-controller"}; !slices.Equal(scanClaimed, want) {
		t.Errorf("scan claimed %q, want %q", scanClaimed, want)
	}
	if diff := cmp.Diff(scanClaimed, indexClaimed); diff != "" {
		t.Errorf("claimed with the index differs from a scan (-scan +index):\n%s", diff)
	}
	slices.Sort(scanWrites)
	slices.Sort(indexWrites)
	if len(scanWrites) == 0 || !slices.Equal(scanWrites, indexWrites) {
		t.Errorf("writes with the index %q, with a scan %q; want the same, not none", indexWrites, scanWrites)
	}
}
