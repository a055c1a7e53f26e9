package ring_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// A member that gains a range serves its keys only once every informer
// has listed it: with the Deployment informer relisted and the ReplicaSet
// informer's relist held back, the gained keys stay Listing (the kept ones
// are still admitted), and are admitted once the ReplicaSets are cached.
func TestGainedKeysWaitForEveryInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		halves := ring.Assign(2)
		var own, gained string
		for i := 0; own == "" || gained == ""; i++ {
			ns := fmt.Sprintf("team-%d", i)
			if halves[0].Contains(ring.KeyHash(ns, "")) {
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

		a := newRing(t, client, "a")
		m, leave := runMembers(t, client, a, newRing(t, client, "b"))
		defer m.stop()
		deployments := ring.Informer(m.factory, &appsv1.Deployment{},
			ring.FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments("")), a, ring.Namespaced)
		replicaSets := ring.Informer(m.factory, &appsv1.ReplicaSet{},
			ring.FromClient[*appsv1.ReplicaSetList](heldReplicaSets), a, ring.Namespaced)
		m.factory.Start(m.ctx.Done())

		admitted := func(ns string) bool {
			release, adm := a.Acquire(ring.KeyHash(ns, ""))
			if adm == ring.Admitted {
				release()
			}
			return adm == ring.Admitted
		}
		testutil.Eventually(t, time.Minute, "a to serve its own half", testutil.True(func() bool { return a.Serving().Equal(ring.NewRanges(halves[0])) && admitted(own) }))

		holdLists.Store(true)
		leave[1]()
		testutil.Eventually(t, time.Minute, "a to serve everything, its Deployment cache holding the gained namespace", testutil.True(func() bool {
			_, cached, _ := deployments.GetStore().GetByKey(gained + "/web")
			return a.Serving().Equal(ring.NewRanges(ring.FullRange)) && cached
		}))
		if _, adm := a.Acquire(ring.KeyHash(gained, "")); adm != ring.Listing {
			t.Fatalf("a gained key before its ReplicaSet informer listed it: %v, want listing", adm)
		}
		// The list is under way: the gate retries the key sooner than a
		// handover would take (newRing's RetryPeriod is 500 ms).
		if _, retry, ok := ring.StringKeyGate(a).Admit(gained + "/web"); ok || retry <= 0 || retry >= 500*time.Millisecond {
			t.Errorf("the gate on a listing key: ok %v, retry after %s; want a retry sooner than the ring's RetryPeriod", ok, retry)
		}
		if !admitted(own) {
			t.Error("a key a kept is not admitted while another informer relists")
		}
		close(release)
		testutil.Eventually(t, time.Minute, "the gained key to be admitted", testutil.True(func() bool { return admitted(gained) }))
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

// A member that gains a range lists it once the old owner has let go, so
// that what the old owner wrote while it drained is in the gained key's
// caches when the key is admitted, however late the watch brings it: here
// a's ReplicaSet watch holds every event back from the moment b, still
// reconciling a key it is losing, creates a ReplicaSet.
func TestGainedKeysSeeTheOldOwnersLastWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		var mu sync.Mutex
		var keys []ring.Key
		for i := range 6 {
			keys = append(keys, ring.Key{Hash: ring.KeyHash(fmt.Sprintf("team-%d", i), ""), Weight: 1})
		}
		member := func(id string) *ring.Ring {
			r, err := ring.New(ring.Options{
				Name:   "test",
				Lease:  lease.Config{Client: client, Namespace: "kube-system", ID: id, LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
				Logger: quiet,
				Keys: func() ([]ring.Key, bool) {
					mu.Lock()
					defer mu.Unlock()
					return slices.Clone(keys), true
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		a, b := member("a"), member("b")
		var hold atomic.Bool
		release := make(chan struct{})
		m, _ := runMembers(t, client, a, b)
		defer m.stop()
		defer close(release)
		ctx := m.ctx
		replicaSets := ring.Informer(m.factory, &appsv1.ReplicaSet{},
			laggingWatches{ring.FromClient[*appsv1.ReplicaSetList](client.AppsV1().ReplicaSets("")), &hold, release}, a, ring.Namespaced)
		m.factory.Start(ctx.Done())

		testutil.Eventually(t, time.Minute, "a and b to serve their shares", testutil.True(func() bool {
			target, _ := a.Target()
			return !target.Empty() && a.Serving().Equal(target) && !b.Serving().Empty()
		}))
		// b's reconciles of its keys are under way; its keys (three of the
		// six) grow three times heavier, so that the coordinator moves one
		// of them to a, which balances the ring (6 and 6) in one step.
		var inFlight []func()
		bServed := b.Serving()
		mu.Lock()
		for i, k := range keys {
			if done, adm := b.Acquire(k.Hash); adm == ring.Admitted {
				inFlight = append(inFlight, done)
				keys[i].Weight = 3
			}
		}
		mu.Unlock()
		var gained string
		testutil.Eventually(t, time.Minute, "a to adopt an assignment that gives it one of b's keys", testutil.True(func() bool {
			target, _ := a.Target()
			for i := range 6 {
				ns := fmt.Sprintf("team-%d", i)
				if h := ring.KeyHash(ns, ""); target.Contains(h) && bServed.Contains(h) {
					gained = ns
					return true
				}
			}
			return false
		}))
		if _, adm := a.Acquire(ring.KeyHash(gained, "")); adm != ring.Pending {
			t.Fatalf("a's gained key %s is %v while b still reconciles it, want pending", gained, adm)
		}

		// b's reconciles take a while (a's informers may relist meanwhile);
		// then one writes, a's watch lags, and b lets go.
		time.Sleep(3 * time.Second)
		synctest.Wait()
		hold.Store(true)
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: gained, Name: "web-5d4f8b7c9"}}
		if _, err := client.AppsV1().ReplicaSets(gained).Create(ctx, rs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, done := range inFlight {
			done()
		}
		testutil.Eventually(t, time.Minute, "a to admit the gained key", testutil.True(func() bool {
			done, adm := a.Acquire(ring.KeyHash(gained, ""))
			if adm == ring.Admitted {
				done()
			}
			return adm == ring.Admitted
		}))
		if _, cached, _ := replicaSets.GetStore().GetByKey(gained + "/" + rs.Name); !cached {
			t.Errorf("a admitted %s without the ReplicaSet b created before it let go", gained)
		}
	})
}

// laggingWatches is a ListerWatcher whose watches hold every event back
// from the moment hold is set until release is closed.
type laggingWatches struct {
	cache.ListerWatcherWithContext
	hold    *atomic.Bool
	release <-chan struct{}
}

func (l laggingWatches) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := l.ListerWatcherWithContext.WatchWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	lw := &laggingWatch{inner: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go lw.run(l.hold, l.release)
	return lw, nil
}

type laggingWatch struct {
	inner watch.Interface
	out   chan watch.Event
	stop  chan struct{}
	once  sync.Once
}

func (w *laggingWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *laggingWatch) Stop() { w.once.Do(func() { close(w.stop); w.inner.Stop() }) }

func (w *laggingWatch) run(hold *atomic.Bool, release <-chan struct{}) {
	defer close(w.out)
	for ev := range w.inner.ResultChan() {
		if hold.Load() {
			select {
			case <-release:
			case <-w.stop:
				return
			}
		}
		select {
		case w.out <- ev:
		case <-w.stop:
			return
		}
	}
}
