//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubesharding "k8s.io/apimachinery/pkg/sharding"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestShardedInformerOnRealAPIServer checks the shard selector against a
// kube-apiserver with ShardedListAndWatch on: the server honours it (the
// list carries ShardInfo and only the range), and a ring member's informer
// caches only its namespaces, then everything once the other member has
// left.
func TestShardedInformerOnRealAPIServer(t *testing.T) {
	testShardedInformer(t, shardedCP.get(t).Client(), true)
}

// TestShardedInformerWithoutTheFeatureGate: the server ignores the
// selector (no ShardInfo), and the informer filters on the client side.
func TestShardedInformerWithoutTheFeatureGate(t *testing.T) {
	testShardedInformer(t, ourCP.get(t).Client(), false)
}

func testShardedInformer(t *testing.T, client kubernetes.Interface, serverShards bool) {
	ctx := t.Context()

	leases := newNamespace(t, client)
	var namespaces []string
	for range 12 {
		ns := newNamespace(t, client)
		namespaces = append(namespaces, ns)
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "sharded"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(namespaces)
	ours := func(items []string) []string {
		var kept []string
		for _, ns := range items {
			if _, found := slices.BinarySearch(namespaces, ns); found {
				kept = append(kept, ns)
			}
		}
		slices.Sort(kept)
		return slices.Compact(kept)
	}
	in := func(contains func(ns string) bool) []string {
		var kept []string
		for _, ns := range namespaces {
			if contains(ns) {
				kept = append(kept, ns)
			}
		}
		return kept
	}

	// The lower half of the hash space, as the API server's shard
	// selector syntax has it.
	selector := kubesharding.NewSelector(kubesharding.ShardRangeRequirement{
		Key: "object.metadata.namespace", Start: "0x0000000000000000", End: "0x8000000000000000",
	}).String()
	list, err := client.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{ShardSelector: selector, FieldSelector: "metadata.name=sharded"})
	if err != nil {
		t.Fatalf("list with %q: %v", selector, err)
	}
	var listed []string
	for _, cm := range list.Items {
		listed = append(listed, cm.Namespace)
	}
	lowerHalf := func(ns string) bool { return sharding.KeyHash(ns, "") < 1<<63 }
	if serverShards {
		if list.ShardInfo == nil || list.ShardInfo.Selector != selector {
			t.Fatalf("ShardInfo = %+v, want the selector echoed: the server did not shard", list.ShardInfo)
		}
		if got, want := ours(listed), in(lowerHalf); !slices.Equal(got, want) {
			t.Fatalf("sharded list holds %v, want %v", got, want)
		}
	} else if list.ShardInfo != nil || !slices.Equal(ours(listed), namespaces) {
		t.Fatalf("without the feature gate: ShardInfo %+v, %d of our namespaces listed; want no sharding", list.ShardInfo, len(ours(listed)))
	}

	newRing := func(id string) *sharding.Ring {
		r, err := sharding.New(sharding.Options{
			Name: "e2e",
			Lease: lease.Config{Client: client, Namespace: leases, ID: id,
				LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 200 * time.Millisecond},
			Logger: testr.New(t),
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := newRing("a"), newRing("b")
	runCtx, stop := context.WithCancel(ctx)
	ctxB, stopB := context.WithCancel(runCtx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(runCtx) })
	wg.Go(func() { _ = b.Run(ctxB) })
	factory := informers.NewSharedInformerFactory(client, 0)
	defer func() {
		stop()
		factory.Shutdown()
		wg.Wait()
	}()
	if err := sharding.Shard(factory, a, sharding.ResourceOf(client.CoreV1().ConfigMaps(""), sharding.Namespaced)); err != nil {
		t.Fatal(err)
	}
	informer := factory.Core().V1().ConfigMaps().Informer()
	factory.Start(runCtx.Done())
	cached := func() []string {
		var got []string
		for _, obj := range informer.GetStore().List() {
			got = append(got, obj.(*corev1.ConfigMap).Namespace)
		}
		return ours(got)
	}
	aServes := func(ns string) bool { return a.Serves(ns, "") }
	// The ring cuts where the cluster's namespaces are: a holds about
	// half of them, whichever half of the hash space that takes.
	testutil.Eventually(t, 30*time.Second, "a's cache to hold its share", func(context.Context) (bool, error) {
		for _, ns := range namespaces {
			if a.Serves(ns, "") == b.Serves(ns, "") {
				return false, fmt.Errorf("namespace %s: a serves it %v, b %v; want exactly one", ns, a.Serves(ns, ""), b.Serves(ns, ""))
			}
		}
		mine := in(aServes)
		return len(a.Members()) == 2 && len(mine) < len(namespaces) && slices.Equal(cached(), mine), nil
	})
	stopB()
	testutil.Eventually(t, 30*time.Second, "a's cache to hold everything once b has left", func(context.Context) (bool, error) {
		return slices.Equal(in(aServes), namespaces) && slices.Equal(cached(), namespaces), nil
	})
}
