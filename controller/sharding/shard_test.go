package sharding_test

import (
	"context"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/go-logr/logr/testr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

func newRing(t *testing.T, client kubernetes.Interface, id string) *sharding.Ring {
	t.Helper()
	r, err := sharding.New(sharding.Options{
		Name: "test",
		Lease: lease.Config{Client: client, Namespace: "kube-system", ID: id,
			LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
		Logger: testr.NewWithOptions(t, testr.Options{Verbosity: 2}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// widget is a custom resource's Go type.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
}

func (w *widget) DeepCopyObject() runtime.Object {
	c := *w
	w.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

var widgets = typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}

// splitNamespaces returns a namespace a serves and b does not, and one b
// serves and a does not, once the two members have split the ring.
func splitNamespaces(a, b *sharding.Ring) (mine, theirs string, ok bool) {
	for i := range 1000 {
		ns := "team-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		switch {
		case a.Serves(ns, "") && !b.Serves(ns, "") && mine == "":
			mine = ns
		case b.Serves(ns, "") && !a.Serves(ns, "") && theirs == "":
			theirs = ns
		}
	}
	return mine, theirs, mine != "" && theirs != ""
}

// Shard registers sharded informers of client-go and custom resources in
// a factory: the factory's accessors return them, and a custom resource's
// cache holds only the member's range.
func TestShardRegistersInformersOfTheRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		a, b := newRing(t, client, "a"), newRing(t, client, "b")
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		factory := informers.NewSharedInformerFactory(client, 0)
		defer func() {
			cancel()
			factory.Shutdown()
			wg.Wait()
		}()
		wg.Go(func() { _ = a.Run(ctx) })
		wg.Go(func() { _ = b.Run(ctx) })
		var mine, theirs string
		testutil.Eventually(t, time.Minute, "the two members to split the ring", testutil.True(func() bool {
			var ok bool
			mine, theirs, ok = splitNamespaces(a, b)
			return ok && len(a.Members()) == 2
		}))
		custom, err := controllertest.NewTypedClient(widgets,
			&widget{ObjectMeta: metav1.ObjectMeta{Namespace: mine, Name: "w"}},
			&widget{ObjectMeta: metav1.ObjectMeta{Namespace: theirs, Name: "w"}})
		if err != nil {
			t.Fatal(err)
		}

		if err := sharding.Shard(factory, a,
			sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced),
			sharding.ResourceOf(custom.Namespace(""), sharding.Namespaced),
		); err != nil {
			t.Fatal(err)
		}
		if !a.Shards(factory.Apps().V1().Deployments().Informer()) {
			t.Error("the factory's Deployment informer is not ring a's")
		}
		if b.Shards(factory.Apps().V1().Deployments().Informer()) {
			t.Error("the factory's Deployment informer is ring b's")
		}
		informer := factory.InformerFor(&widget{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
			t.Fatal("Shard did not register the Widget informer")
			return nil
		})
		if !a.Shards(informer) {
			t.Error("the Widget informer is not ring a's")
		}
		factory.Start(ctx.Done())
		testutil.Eventually(t, time.Minute, "the Widget cache to hold its range", testutil.True(func() bool {
			keys := informer.GetStore().ListKeys()
			return len(keys) == 1 && keys[0] == mine+"/w"
		}))
	})
}

// Shard refuses a type the factory already serves unsharded, does nothing
// without a ring, and refuses a zero Resource.
func TestShardRefusesWhatItCannotShard(t *testing.T) {
	client := fake.NewClientset()
	ring := newRing(t, client, "a")
	factory := informers.NewSharedInformerFactory(client, 0)
	plain := factory.Apps().V1().Deployments().Informer()
	err := sharding.Shard(factory, ring, sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced), sharding.Resource{})
	if err == nil || !strings.Contains(err.Error(), "already has an informer of *v1.Deployment") || !strings.Contains(err.Error(), "zero Resource") {
		t.Errorf("Shard = %v, want it to name the unsharded Deployment informer and the zero Resource", err)
	}
	if ring.Shards(plain) {
		t.Error("an informer the factory made is sharded")
	}
	other := informers.NewSharedInformerFactory(client, 0)
	if err := sharding.Shard(other, nil, sharding.ResourceOf(client.AppsV1().ReplicaSets(""), sharding.Namespaced)); err != nil {
		t.Errorf("Shard without a ring = %v", err)
	}
	if ring.Shards(other.Apps().V1().ReplicaSets().Informer()) {
		t.Error("without a ring, Shard sharded an informer")
	}
	if ring.Shards(nil) || (*sharding.Ring)(nil).Shards(plain) {
		t.Error("Shards(nil), or a nil ring's Shards, is true")
	}
}

// A ring and the informers it shards are garbage once the program drops
// them: nothing process-wide holds them (a process that makes a manager
// per test, or anew after losing its leadership).
func TestDroppedRingIsCollected(t *testing.T) {
	client := fake.NewClientset()
	ring := newRing(t, client, "a")
	factory := informers.NewSharedInformerFactory(client, 0)
	if err := sharding.Shard(factory, ring, sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced)); err != nil {
		t.Fatal(err)
	}
	if !ring.Shards(factory.Apps().V1().Deployments().Informer()) {
		t.Fatal("the sharded informer is not its ring's")
	}
	dropped := weak.Make(ring)
	ring, factory = nil, nil
	for range 10 {
		goruntime.GC()
		if dropped.Value() == nil {
			return
		}
	}
	t.Error("the ring is still reachable after 10 GCs: something process-wide holds it and its informers")
}
