package ring_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// replica is one manager with a ring member and a leader-only runnable.
type replica struct {
	ring    *ring.Ring
	leading atomic.Bool
	stop    context.CancelFunc
	done    chan error
}

func startReplica(t *testing.T, client *fake.Clientset, id string) *replica {
	t.Helper()
	mgr, err := manager.New(manager.Options{
		Logger:         funcr.New(func(string, string) {}, funcr.Options{}),
		Lease:          lease.Config{Client: client, Namespace: "kube-system", ID: id},
		LeaderElection: manager.LeaderElection{Enabled: true, Name: "test-leader", ReleaseOnCancel: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	r := &replica{ring: newRing(t, client, id), done: make(chan error, 1)}
	leaderOnly := manager.RunnableFunc(func(ctx context.Context) error {
		r.leading.Store(true)
		defer r.leading.Store(false)
		<-ctx.Done()
		return nil
	})
	if err := mgr.Add(r.ring); err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(leaderOnly); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	r.stop = stop
	go func() { r.done <- mgr.Run(ctx) }()
	return r
}

// A ring and a leader Lease live side by side: every replica is a ring
// member, one replica runs the leader-only runnables, and when it stops
// the other both leads and serves the whole ring.
func TestRingAndLeaderElectionInOneManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		a := startReplica(t, client, "a")
		testutil.Eventually(t, time.Minute, "a to lead", testutil.True(a.leading.Load))
		b := startReplica(t, client, "b")
		halves := ring.Assign(2)
		testutil.Eventually(t, time.Minute, "a and b to serve a half each", testutil.True(func() bool {
			return a.ring.Serving().Equal(ring.NewRanges(halves[0])) && b.ring.Serving().Equal(ring.NewRanges(halves[1]))
		}))
		if b.leading.Load() {
			t.Fatal("b leads too")
		}

		a.stop()
		if err := <-a.done; err != nil {
			t.Fatalf("a: Run: %v", err)
		}
		testutil.Eventually(t, time.Minute, "b to lead and serve everything", testutil.True(func() bool {
			return b.leading.Load() && b.ring.Serving().Equal(ring.NewRanges(ring.FullRange))
		}))
		b.stop()
		if err := <-b.done; err != nil {
			t.Fatalf("b: Run: %v", err)
		}
	})
}
