package sharding_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// replica is one manager with a ring member and a leader-only runnable.
type replica struct {
	ring    *sharding.Ring
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
		waitFor(t, "a to lead", a.leading.Load)
		b := startReplica(t, client, "b")
		halves := sharding.Assign(2)
		waitFor(t, "a and b to serve a half each", func() bool {
			return a.ring.Serving().Equal(sharding.NewRanges(halves[0])) && b.ring.Serving().Equal(sharding.NewRanges(halves[1]))
		})
		if b.leading.Load() {
			t.Fatal("b leads too")
		}

		a.stop()
		if err := <-a.done; err != nil {
			t.Fatalf("a: Run: %v", err)
		}
		waitFor(t, "b to lead and serve everything", func() bool {
			return b.leading.Load() && b.ring.Serving().Equal(sharding.NewRanges(sharding.FullRange))
		})
		b.stop()
		if err := <-b.done; err != nil {
			t.Fatalf("b: Run: %v", err)
		}
	})
}
