package sharding_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// A member that gains a range serves its keys only once every informer
// has listed it: with the Deployment informer relisted and the ReplicaSet
// informer's relist held back, the gained keys stay Pending (the kept ones
// are still admitted), and are admitted once the ReplicaSets are cached.
func TestGainedKeysWaitForEveryInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		halves := sharding.Assign(2)
		var own, gained string
		for i := 0; own == "" || gained == ""; i++ {
			ns := fmt.Sprintf("team-%d", i)
			if halves[0].Contains(sharding.KeyHash(ns, "")) {
				own = ns
			} else {
				gained = ns
			}
			if i > 1000 {
				t.Fatal("no namespace in each half")
			}
		}
		for _, ns := range []string{own, gained} {
			meta := metav1.ObjectMeta{Namespace: ns, Name: "web"}
			if _, err := client.AppsV1().Deployments(ns).Create(t.Context(), &appsv1.Deployment{ObjectMeta: meta}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := client.AppsV1().ReplicaSets(ns).Create(t.Context(), &appsv1.ReplicaSet{ObjectMeta: meta}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		// The ReplicaSet lists are held outside the fake clientset: a
		// reactor runs under the fake's lock, and holding it there would
		// hold the Deployment informer's lists too.
		var holdLists atomic.Bool
		release := make(chan struct{})
		heldReplicaSets := heldLister{ReplicaSetInterface: client.AppsV1().ReplicaSets(""), hold: &holdLists, release: release}

		a, b := newRing(t, client, "a"), newRing(t, client, "b")
		ctx, stop := context.WithCancel(t.Context())
		ctxB, stopB := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() { _ = a.Run(ctx) })
		wg.Go(func() { _ = b.Run(ctxB) })
		factory := informers.NewSharedInformerFactory(client, 0)
		defer func() {
			stop()
			factory.Shutdown()
			wg.Wait()
		}()
		deployments := sharding.Informer(factory, &appsv1.Deployment{},
			sharding.FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments("")), a, sharding.Namespaced)
		replicaSets := sharding.Informer(factory, &appsv1.ReplicaSet{},
			sharding.FromClient[*appsv1.ReplicaSetList](heldReplicaSets), a, sharding.Namespaced)
		factory.Start(ctx.Done())

		admitted := func(ns string) bool {
			release, adm := a.Acquire(sharding.KeyHash(ns, ""))
			if adm == sharding.Admitted {
				release()
			}
			return adm == sharding.Admitted
		}
		waitFor(t, "a to serve its own half", func() bool { return a.Serving().Equal(sharding.NewRanges(halves[0])) && admitted(own) })

		holdLists.Store(true)
		stopB()
		waitFor(t, "a to serve everything, its Deployment cache holding the gained namespace", func() bool {
			_, cached, _ := deployments.GetStore().GetByKey(gained + "/web")
			return a.Serving().Equal(sharding.NewRanges(sharding.FullRange)) && cached
		})
		if _, adm := a.Acquire(sharding.KeyHash(gained, "")); adm != sharding.Pending {
			t.Fatalf("a gained key before its ReplicaSet informer listed it: %v, want pending", adm)
		}
		if !admitted(own) {
			t.Error("a key a kept is not admitted while another informer relists")
		}
		close(release)
		waitFor(t, "the gained key to be admitted", func() bool { return admitted(gained) })
		if _, cached, _ := replicaSets.GetStore().GetByKey(gained + "/web"); !cached {
			t.Error("the gained key was admitted before its ReplicaSet was cached")
		}
	})
}

// heldLister is a ReplicaSet client whose List waits for release while
// hold is set.
type heldLister struct {
	appsv1client.ReplicaSetInterface
	hold    *atomic.Bool
	release <-chan struct{}
}

func (l heldLister) List(ctx context.Context, opts metav1.ListOptions) (*appsv1.ReplicaSetList, error) {
	if l.hold.Load() {
		select {
		case <-l.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return l.ReplicaSetInterface.List(ctx, opts)
}
