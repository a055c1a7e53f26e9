package deployment

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// Over informers sharded by a ring, the controller caches and reconciles the Deployments
// of its member's range only, on every replica rather than the leader.
func TestNewControllerWithRingKeepsToItsRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		halves := sharding.Assign(2)
		mine, theirs := newDeployment("web", 2), newDeployment("web", 2)
		mine.Namespace, theirs.Namespace = namespaceIn(t, halves[0]), namespaceIn(t, halves[1])
		env := controllertest.New(t, mine, theirs)

		ctx, stop := context.WithCancel(env.Context())
		var rings sync.WaitGroup
		defer rings.Wait()
		defer stop()
		a, b := newTestRing(t, env, "a"), newTestRing(t, env, "b")
		rings.Go(func() { _ = a.Run(ctx) })
		rings.Go(func() { _ = b.Run(ctx) })
		for !a.Serving().Equal(sharding.NewRanges(halves[0])) || !b.Serving().Equal(sharding.NewRanges(halves[1])) {
			time.Sleep(100 * time.Millisecond)
		}

		if err := sharding.Shard(env.Informers, a, Resources(env.Client)...); err != nil {
			t.Fatal(err)
		}
		ctrl, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(100), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ctrl.NeedLeaderElection() {
			t.Error("a ring member's controller waits for leader election")
		}
		env.Start(ctrl)

		// A key the controller sees before the ring has counted its
		// object as listed comes back a little later (Listing): poll,
		// for a virtual minute at most.
		replicaSets := func(ns string) int {
			rss, err := env.Client.AppsV1().ReplicaSets(ns).List(env.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return len(rss.Items)
		}
		for i := 0; i < 600 && replicaSets(mine.Namespace) == 0; i++ {
			time.Sleep(100 * time.Millisecond)
			synctest.Wait()
		}
		for _, d := range []struct {
			ns     string
			wantRS int
		}{{mine.Namespace, 1}, {theirs.Namespace, 0}} {
			if got := replicaSets(d.ns); got != d.wantRS {
				t.Errorf("namespace %s: %d ReplicaSets, want %d", d.ns, got, d.wantRS)
			}
		}
		cached, err := env.Informers.Apps().V1().Deployments().Lister().List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		if len(cached) != 1 || cached[0].Namespace != mine.Namespace {
			t.Errorf("cached Deployments = %d, want only the one in %s", len(cached), mine.Namespace)
		}
	})
}

func newTestRing(t *testing.T, env *controllertest.Env, id string) *sharding.Ring {
	t.Helper()
	r, err := sharding.New(sharding.Options{
		Client: env.Client, Namespace: "kube-system", Name: "deployments", ID: id,
		LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond,
		Logger: logr.Discard(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// namespaceIn returns a namespace name that hashes into r.
func namespaceIn(t *testing.T, r sharding.Range) string {
	t.Helper()
	for i := range 1000 {
		ns := fmt.Sprintf("team-%d-apps", i)
		if r.Contains(sharding.KeyHash(ns, "")) {
			return ns
		}
	}
	t.Fatalf("no namespace hashes into %v", r)
	return ""
}

// A factory with some of the controller's informers sharded and others
// not would reconcile Deployments over a part of their ReplicaSets or
// Pods: NewController refuses it.
func TestNewControllerRefusesPartlyShardedInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t)
		ring := newTestRing(t, env, "a")
		if err := sharding.Shard(env.Informers, ring, Resources(env.Client)[0]); err != nil {
			t.Fatal(err)
		}
		_, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(100), Options{})
		if err == nil || !strings.Contains(err.Error(), "sharded by one ring, or none") {
			t.Errorf("NewController = %v, want it to refuse", err)
		}
	})
}
