package sharding_test

import (
	goruntime "runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/controller/typed"
)

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

// namespaceIn returns a namespace name that hashes into r.
func namespaceIn(t *testing.T, r sharding.Range) string {
	t.Helper()
	for i := range 1000 {
		if ns := "team-" + string(rune('a'+i%26)) + strings.Repeat("x", i/26); r.Contains(sharding.KeyHash(ns, "")) {
			return ns
		}
	}
	t.Fatalf("no namespace hashes into %v", r)
	return ""
}

// Shard registers sharded informers of client-go and custom resources in
// a factory: the factory's accessors return them, and a custom resource's
// cache holds only the member's range.
func TestShardRegistersInformersOfTheRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		halves := sharding.Assign(2)
		mine, theirs := namespaceIn(t, halves[0]), namespaceIn(t, halves[1])
		custom, err := controllertest.NewTypedClient(widgets,
			&widget{ObjectMeta: metav1.ObjectMeta{Namespace: mine, Name: "w"}},
			&widget{ObjectMeta: metav1.ObjectMeta{Namespace: theirs, Name: "w"}})
		if err != nil {
			t.Fatal(err)
		}
		client := fake.NewClientset()
		a, b := newRing(t, client, "a"), newRing(t, client, "b")
		m, _ := runMembers(t, client, a, b)
		defer m.stop()
		ctx, factory := m.ctx, m.factory
		waitFor(t, "the two members to serve a half each", func() bool {
			return a.Serving().Equal(sharding.NewRanges(halves[0])) && b.Serving().Equal(sharding.NewRanges(halves[1]))
		})

		if err := sharding.Shard(factory, a,
			sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced),
			sharding.ResourceOf(custom.Namespace(""), sharding.Namespaced),
		); err != nil {
			t.Fatal(err)
		}
		if got := sharding.RingOf(factory.Apps().V1().Deployments().Informer()); got != a {
			t.Errorf("the factory's Deployment informer belongs to %v, want ring a", got)
		}
		informer := factory.InformerFor(&widget{}, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
			t.Fatal("Shard did not register the Widget informer")
			return nil
		})
		if sharding.RingOf(informer) != a || sharding.RingOfInformer(informer) != a {
			t.Error("RingOf the Widget informer is not ring a")
		}
		factory.Start(ctx.Done())
		waitFor(t, "the Widget cache to hold its range", func() bool {
			keys := informer.GetStore().ListKeys()
			return len(keys) == 1 && keys[0] == mine+"/w"
		})
		if keys := informer.GetStore().ListKeys(); len(keys) != 1 || keys[0] != mine+"/w" {
			t.Errorf("cached %v, want only %s/w", keys, mine)
		}
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
	if sharding.RingOf(plain) != nil {
		t.Error("an informer the factory made is sharded")
	}
	other := informers.NewSharedInformerFactory(client, 0)
	if err := sharding.Shard(other, nil, sharding.ResourceOf(client.AppsV1().ReplicaSets(""), sharding.Namespaced)); err != nil {
		t.Errorf("Shard without a ring = %v", err)
	}
	if sharding.RingOf(other.Apps().V1().ReplicaSets().Informer()) != nil {
		t.Error("without a ring, Shard sharded an informer")
	}
	if sharding.RingOf(nil) != nil || sharding.RingOfInformer(nil) != nil {
		t.Error("RingOf(nil) is a ring")
	}
}

// KeyGate knows the shard of namespace/name strings and NamespacedNames,
// and of no other key; ReconcileTimeout is 4/5 of the handover margin.
func TestKeyGateAndReconcileTimeout(t *testing.T) {
	ring := newRing(t, fake.NewClientset(), "a")
	if _, err := sharding.KeyGate[string](ring); err != nil {
		t.Error(err)
	}
	if _, err := sharding.KeyGate[types.NamespacedName](ring); err != nil {
		t.Error(err)
	}
	if _, err := sharding.KeyGate[int](ring); err == nil || !strings.Contains(err.Error(), "keys of type int have no default shard") {
		t.Errorf("KeyGate[int] = %v, want an error", err)
	}
	// newRing: LeaseDuration 3s, RenewDeadline 2s.
	if got := ring.ReconcileTimeout(); got != 800*time.Millisecond {
		t.Errorf("ReconcileTimeout = %v, want 800ms", got)
	}
}

// A ring and the informers it shards are garbage once the program drops
// them: what RingOf keeps to answer must not hold their caches (a process
// that makes a manager per test, or anew after losing its leadership).
func TestDroppedRingIsCollected(t *testing.T) {
	client := fake.NewClientset()
	ring, err := sharding.New(sharding.Options{Client: client, Namespace: "kube-system", Name: "test", ID: "a", Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	if err := sharding.Shard(factory, ring, sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced)); err != nil {
		t.Fatal(err)
	}
	if sharding.RingOf(factory.Apps().V1().Deployments().Informer()) != ring {
		t.Fatal("RingOf the sharded informer is not its ring")
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
