package ring_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/testr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

func newRing(t *testing.T, client *fake.Clientset, id string) *ring.Ring {
	t.Helper()
	r, err := ring.New(ring.Options{
		Name:   "test",
		Lease:  lease.Config{Client: client, Namespace: "kube-system", ID: id, LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
		Logger: testr.NewWithOptions(t, testr.Options{Verbosity: 2}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runningMembers runs ring members, and the informers of an informer factory
// (once the test starts it), until stop.
type runningMembers struct {
	ctx     context.Context // ends at stop
	factory informers.SharedInformerFactory
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// runMembers runs rings on client's Leases; leave[i] makes rings[i]
// leave the ring.
func runMembers(t *testing.T, client *fake.Clientset, rings ...*ring.Ring) (m *runningMembers, leave []context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	m = &runningMembers{ctx: ctx, cancel: cancel, factory: informers.NewSharedInformerFactory(client, 0)}
	for _, r := range rings {
		leave = append(leave, m.run(r))
	}
	return m, leave
}

// run runs one more member, until the returned function or stop.
func (m *runningMembers) run(r *ring.Ring) (leave context.CancelFunc) {
	ctx, leave := context.WithCancel(m.ctx)
	m.wg.Go(func() { _ = r.Run(ctx) })
	return leave
}

// stop ends the members and the informers and waits for them, in this
// order: a synctest bubble's clock runs only while everything waits on
// it.
func (m *runningMembers) stop() {
	m.cancel()
	m.factory.Shutdown()
	m.wg.Wait()
}

// Two members split the space; when one leaves, it releases its Lease
// after its in-flight reconcile returns, and the other takes over the
// whole space before the Lease would have expired.
func TestRunSplitsAndLeavesCleanly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		a, b := newRing(t, client, "a"), newRing(t, client, "b")
		ctxA, stopA := context.WithCancel(t.Context())
		ctxB, stopB := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Go(func() { errs[0] = a.Run(ctxA) })
		wg.Go(func() { errs[1] = b.Run(ctxB) })
		halves := ring.Assign(2)
		testutil.Eventually(t, time.Minute, "the two members to serve a half each", testutil.True(func() bool {
			return a.Serving().Equal(ring.NewRanges(halves[0])) && b.Serving().Equal(ring.NewRanges(halves[1]))
		}))

		release, adm := a.Acquire(halves[0].Start)
		if adm != ring.Admitted {
			t.Fatalf("a's own key: %v", adm)
		}
		if _, adm := b.Acquire(halves[0].Start); adm != ring.NotOwned {
			t.Errorf("b on a's key: %v, want not owned", adm)
		}
		stopA()
		testutil.Eventually(t, time.Minute, "a to stop handing out keys", testutil.True(func() bool { return a.Serving().Empty() }))
		time.Sleep(5 * time.Second) // past a's lease duration: only a's reconcile holds b back
		if _, adm := b.Acquire(halves[0].Start); adm == ring.Admitted {
			t.Fatal("b took a's key while a's reconcile of it was in flight")
		}
		leaving := time.Now()
		release()
		testutil.Eventually(t, time.Minute, "b to serve the whole space", testutil.True(func() bool { return b.Serving().Equal(ring.NewRanges(ring.FullRange)) }))
		if d := time.Since(leaving); d >= 3*time.Second {
			t.Errorf("handover after a clean leave took %s, as long as a lease expiry", d)
		}
		lease, err := client.CoordinationV1().Leases("kube-system").Get(t.Context(), "test-a", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if lease.Spec.HolderIdentity != nil {
			t.Errorf("a's Lease still held by %q after leaving", *lease.Spec.HolderIdentity)
		}
		stopB()
		wg.Wait()
		if errs[0] != nil || errs[1] != nil {
			t.Errorf("Run returned %v, %v", errs[0], errs[1])
		}
	})
}
