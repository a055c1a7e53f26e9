package ring_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/go-logr/logr/testr"
	"github.com/prometheus/client_golang/prometheus"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// cachedNamespaces are the namespaces of the objects in store, sorted.
func cachedNamespaces(store cache.Store) []string {
	var namespaces []string
	for _, obj := range store.List() {
		namespaces = append(namespaces, obj.(*corev1.ConfigMap).Namespace)
	}
	slices.Sort(namespaces)
	return namespaces
}

// namespacesIn are those of namespaces whose hash is in r, sorted.
func namespacesIn(namespaces []string, r ring.Range) []string {
	var in []string
	for _, ns := range namespaces {
		if r.Contains(ring.KeyHash(ns, "")) {
			in = append(in, ns)
		}
	}
	slices.Sort(in)
	return in
}

// The fake clientset ignores shard selectors, as an API server without
// the feature gate does: the cache holds only the member's range anyway,
// lists it again when the range grows, and keeps watching only it. Each
// sharded informer's store size is a gauge on the ring's registry, named
// by resource.
func TestInformerCachesOnlyTheTargetAndFollowsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var namespaces []string
		client := fake.NewClientset()
		for i := range 12 {
			ns := fmt.Sprintf("%d-ns", i) // not "ns-%d": those all hash to a's half
			namespaces = append(namespaces, ns)
			if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		slices.Sort(namespaces)
		reg := prometheus.NewRegistry()
		a, err := ring.New(ring.Options{
			Name:   "test",
			Lease:  lease.Config{Client: client, Namespace: "kube-system", ID: "a", LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
			Logger: testr.New(t), Registry: reg,
		})
		if err != nil {
			t.Fatal(err)
		}
		m, leave := runMembers(t, client, a, newRing(t, client, "b"))
		defer m.stop()
		factory := m.factory
		informer := ring.Informer(factory, &corev1.ConfigMap{},
			ring.FromClient[*corev1.ConfigMapList](client.CoreV1().ConfigMaps("")), a, ring.Namespaced)
		if factory.Core().V1().ConfigMaps().Informer().GetStore() != informer.GetStore() {
			t.Fatal("the factory's typed accessor does not return the sharded informer")
		}
		ring.Informer(factory, &appsv1.Deployment{},
			ring.FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments("")), a, ring.Namespaced)
		if got := cachedObjects(t, reg); len(got) != 2 || got["configmaps"] != 0 || got["deployments.apps"] != 0 {
			t.Fatalf("gauges before the informers start: %v, want configmaps and deployments.apps at 0", got)
		}
		factory.Start(m.ctx.Done())

		half := namespacesIn(namespaces, ring.Assign(2)[0])
		if len(half) == 0 || len(half) == len(namespaces) {
			t.Fatalf("the test's namespaces all hash to one half (%d of %d): pick others", len(half), len(namespaces))
		}
		testutil.Eventually(t, time.Minute, "a's cache and gauge to hold its half", testutil.True(func() bool {
			return informer.HasSynced() && slices.Equal(cachedNamespaces(informer.GetStore()), half) &&
				cachedObjects(t, reg)["configmaps"] == float64(len(half))
		}))

		leave[1]()
		testutil.Eventually(t, time.Minute, "a's cache and gauge to hold everything once b has left", testutil.True(func() bool {
			return slices.Equal(cachedNamespaces(informer.GetStore()), namespaces) &&
				cachedObjects(t, reg)["configmaps"] == float64(len(namespaces))
		}))
		if got := cachedObjects(t, reg)["deployments.apps"]; got != 0 {
			t.Errorf("deployments.apps = %v, want 0", got)
		}
		// The new watch covers the whole range.
		ns := "added-later"
		if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, time.Minute, "a new object to arrive", testutil.True(func() bool { return len(informer.GetStore().List()) == len(namespaces)+1 }))
	})
}

func TestListWatchSendsTheShardSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		// Synced by hand, so with keys of its own: the default's informer
		// runs only in Run. No keys: the ring's one member holds all.
		a, err := ring.New(ring.Options{
			Name: "test", Lease: lease.Config{Client: client, Namespace: "kube-system", ID: "a"}, Logger: testr.New(t),
			Keys: func() ([]ring.Key, bool) { return nil, true },
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		var got []string
		lw := &cache.ListWatch{ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			got = append(got, opts.ShardSelector)
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ShardInfo: &metav1.ShardInfo{Selector: opts.ShardSelector}}}, nil
		}}
		if _, err := ring.ListWatch(lw, a, ring.Namespaced).ListWithContext(t.Context(), metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		want := "shardRange(object.metadata.namespace, '0x0000000000000000', '0x10000000000000000')"
		if len(got) != 1 || got[0] != want {
			t.Errorf("ShardSelector %q, want %q", got, want)
		}
		got = nil
		if _, err := ring.ListWatch(lw, a, ring.ClusterScoped).ListWithContext(t.Context(), metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != "" {
			t.Errorf("cluster-scoped ShardSelector %q, want none", got)
		}
	})
}

// A typed list without ShardInfo (an API server without the feature gate)
// is logged, once per informer: the filtering falls to the client.
func TestListWatchWarnsOnceWhenTheServerIgnoresTheSelector(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var warnings int
		logger := funcr.New(func(_, args string) {
			if strings.Contains(args, "did not honour the shard selector") && strings.Contains(args, "*v1.ConfigMapList") {
				warnings++
			}
		}, funcr.Options{})
		client := fake.NewClientset()
		a, err := ring.New(ring.Options{
			Name:   "test",
			Lease:  lease.Config{Client: client, Namespace: "kube-system", ID: "a", LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
			Logger: logger, Keys: func() ([]ring.Key, bool) { return nil, true },
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Sync(t.Context()); err != nil {
			t.Fatal(err)
		}
		honoured := false
		lw := &cache.ListWatch{ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			list := &corev1.ConfigMapList{}
			if honoured {
				list.ShardInfo = &metav1.ShardInfo{Selector: opts.ShardSelector}
			}
			return list, nil
		}}
		sharded := ring.ListWatch(lw, a, ring.Namespaced)
		honoured = true
		if _, err := sharded.ListWithContext(t.Context(), metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if warnings != 0 {
			t.Fatalf("%d warnings for a list the server sharded, want none", warnings)
		}
		honoured = false
		for range 2 {
			if _, err := sharded.ListWithContext(t.Context(), metav1.ListOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if warnings != 1 {
			t.Errorf("%d warnings for two lists the server did not shard, want 1", warnings)
		}
	})
}
