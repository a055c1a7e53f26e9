package builder_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/builder"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/handler"
)

var quietLogger = funcr.New(func(string, string) {}, funcr.Options{})

// shardedManager is a manager in ring "test" with a factory whose
// Deployment and ReplicaSet informers are sharded by it.
func shardedManager(t *testing.T, client kubernetes.Interface, id string) (*manager.Manager, informers.SharedInformerFactory) {
	t.Helper()
	mgr, err := manager.New(manager.Options{
		Logger: quietLogger, Client: client,
		Lease: lease.Config{Namespace: "kube-system", ID: id,
			LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
		LeaderElection: manager.LeaderElection{Enabled: true, Name: "test-leader", ReleaseOnCancel: true},
		Sharding:       manager.Sharding{Ring: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	if err := sharding.Shard(factory, mgr.Ring(),
		sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced),
		sharding.ResourceOf(client.AppsV1().ReplicaSets(""), sharding.Namespaced),
	); err != nil {
		t.Fatal(err)
	}
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		t.Fatal(err)
	}
	return mgr, factory
}

// namespacesIn returns n namespace names that hash into half (0: the
// lower half of the hash space, 1: the upper), the shares of a ring of
// two members that balances no keys.
func namespacesIn(t *testing.T, half uint64, n int) []string {
	t.Helper()
	var out []string
	for i := 0; len(out) < n && i < 10000; i++ {
		if ns := fmt.Sprintf("team-%d", i); sharding.KeyHash(ns, "")>>63 == half {
			out = append(out, ns)
		}
	}
	if len(out) < n {
		t.Fatalf("found %d namespaces in half %d, want %d", len(out), half, n)
	}
	return out
}

// Two replicas of one sharded controller, in one ring: each caches and
// reconciles the Deployments of its half only, though only one of them
// leads.
func TestShardedControllersSplitTheKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		want := [2][]string{}
		var objects []runtime.Object
		for i := range 2 {
			for _, ns := range namespacesIn(t, uint64(i), 3) {
				objects = append(objects, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})
				want[i] = append(want[i], ns+"/web")
			}
		}
		client := fake.NewClientset(objects...)
		var recs [2]*controllertest.Recorder[string]
		var factories [2]informers.SharedInformerFactory
		done := make(chan error, 2)
		ctx, stop := context.WithCancel(t.Context())
		for i, id := range []string{"a", "b"} {
			mgr, factory := shardedManager(t, client, id)
			recs[i], factories[i] = &controllertest.Recorder[string]{}, factory
			c, err := builder.ControllerManagedBy(mgr, "deployments", handler.ObjectKey).
				For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
				Owns(factory.Apps().V1().ReplicaSets().Informer()).
				Sharded().
				Complete(recs[i])
			if err != nil {
				t.Fatal(err)
			}
			if c.NeedLeaderElection() {
				t.Errorf("%s: a sharded controller waits for leader election", id)
			}
			go func() { done <- mgr.Run(ctx) }()
		}
		cached := func(i int) int {
			list, err := factories[i].Apps().V1().Deployments().Lister().List(labels.Everything())
			if err != nil {
				t.Fatal(err)
			}
			return len(list)
		}
		for range 600 {
			if cached(0) == 3 && cached(1) == 3 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if cached(0) != 3 || cached(1) != 3 {
			t.Fatalf("the replicas cache %d and %d Deployments, want 3 each", cached(0), cached(1))
		}
		// A new Deployment wakes its member only.
		for i := range want {
			for _, key := range slices.Clone(want[i]) {
				ns, _, _ := strings.Cut(key, "/")
				if _, err := client.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "api"}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				want[i] = append(want[i], ns+"/api")
			}
			slices.Sort(want[i])
		}
		// A key the controller sees before the ring has counted it as
		// listed comes back a little later (Listing): poll, for a
		// virtual minute at most. The ring does not promise which member gets
		// which half.
		var got [2][]string
		splitAsWanted := func() bool {
			return (slices.Equal(got[0], want[0]) && slices.Equal(got[1], want[1])) ||
				(slices.Equal(got[0], want[1]) && slices.Equal(got[1], want[0]))
		}
		for range 600 {
			synctest.Wait()
			for i := range got {
				got[i] = append(got[i], keysAfter(recs[i])...)
				slices.Sort(got[i])
				got[i] = slices.Compact(got[i])
			}
			if splitAsWanted() {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if slices.Equal(got[0], want[1]) {
			want[0], want[1] = want[1], want[0]
		}
		for i := range 2 {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("replica %d reconciled %v, want %v", i, got[i], want[i])
			}
		}
		stop()
		for range 2 {
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		}
	})
}

// Build names every informer that does not belong to the controller's
// ring, and sharding that only a ring can do.
func TestShardedRefusesInformersOfAnotherRing(t *testing.T) {
	client := fake.NewClientset()
	mgr, factory := shardedManager(t, client, "a")
	plain := informers.NewSharedInformerFactory(client, 0)
	reconcile := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		return controller.Result{}, nil
	})
	sharded, err := sharding.ControllerOptions(mgr.Ring(), controller.Options[string]{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ringGate := sharded.Gate
	for _, tc := range []struct {
		name string
		b    *builder.Builder[string]
		want []string
	}{{
		name: "unsharded informers under Sharded",
		b: builder.ControllerManagedBy(mgr, "a", handler.ObjectKey).
			For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
			Owns(plain.Apps().V1().ReplicaSets().Informer()).
			Watches(plain.Core().V1().Pods().Informer(), handler.Map(func(metav1.Object) []string { return nil })).
			Sharded(),
		want: []string{"Owns #1: the informer is not sharded by ring", "Watches #1: the informer is not sharded by ring"},
	}, {
		name: "sharded informers without Sharded",
		b: builder.ControllerManagedBy(mgr, "b", handler.ObjectKey).
			For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace),
		want: []string{`For Deployment.apps: the informer lists only the range of ring "test": call Sharded`},
	}, {
		name: "a gate of its own",
		b: builder.ControllerManagedBy(mgr, "c", handler.ObjectKey).
			For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
			WithOptions(controller.Options[string]{Gate: ringGate}).
			Sharded(),
		want: []string{"the options have a Gate"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.b.Complete(reconcile)
			if err == nil {
				t.Fatal("Complete succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}

	type key struct{ ns, name string }
	_, err = builder.ControllerManagedBy(mgr, "d", func(o metav1.Object) key { return key{o.GetNamespace(), o.GetName()} }).
		For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
		Sharded().
		Complete(controller.ReconcilerFunc[key](func(context.Context, key) (controller.Result, error) { return controller.Result{}, nil }))
	if err == nil || !strings.Contains(err.Error(), "use ShardedBy") {
		t.Errorf("a key type without a default shard: %v, want a hint at ShardedBy", err)
	}
	c, err := builder.ControllerManagedBy(mgr, "e", func(o metav1.Object) key { return key{o.GetNamespace(), o.GetName()} }).
		For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
		ShardedBy(func(k key) (string, string) { return k.ns, k.name }).
		Complete(controller.ReconcilerFunc[key](func(context.Context, key) (controller.Result, error) { return controller.Result{}, nil }))
	if err != nil {
		t.Fatalf("ShardedBy: %v", err)
	}
	if c.NeedLeaderElection() {
		t.Error("ShardedBy: the controller waits for leader election")
	}
}

// Without a ring, Sharded changes nothing: the controller runs on the
// leader, over whole informers.
func TestShardedWithoutARing(t *testing.T) {
	client := fake.NewClientset()
	mgr, err := manager.New(manager.Options{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	if err := sharding.Shard(factory, mgr.Ring(), sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced)); err != nil {
		t.Fatal(err)
	}
	c, err := builder.ControllerManagedBy(mgr, "deployments", handler.ObjectKey).
		For(factory.Apps().V1().Deployments().Informer(), deploymentGK, meta.RESTScopeNamespace).
		Sharded().
		Complete(controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) { return controller.Result{}, nil }))
	if err != nil {
		t.Fatal(err)
	}
	if !c.NeedLeaderElection() {
		t.Error("without a ring, the controller runs on every replica")
	}
	if mgr.Ring().Shards(factory.Apps().V1().Deployments().Informer()) {
		t.Error("without a ring, Shard sharded the informer")
	}
}
