package deployment_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// A sharded Deployment controller is wired as any sharded controller
// (sharding.Shard on its factory, sharding.ControllerOptions): it caches
// and reconciles the Deployments of its member's range only, on every
// replica rather than the leader. The deployment package knows nothing of
// it.
func TestShardedControllerKeepsToItsRange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mine, theirs := exampleDeployment(), exampleDeployment()
		// A ring of two members that balances no keys splits the hash
		// space in halves, the lower one to the smaller ID.
		mine.Namespace, theirs.Namespace = namespaceIn(t, 0), namespaceIn(t, 1)
		env := controllertest.New(t, mine, theirs)

		ctx, stop := context.WithCancel(env.Context())
		var rings sync.WaitGroup
		defer rings.Wait()
		defer stop()
		a, b := newTestRing(t, env, "a"), newTestRing(t, env, "b")
		rings.Go(func() { _ = a.Run(ctx) })
		rings.Go(func() { _ = b.Run(ctx) })
		testutil.Eventually(t, time.Minute, "a and b to serve a half each", testutil.True(func() bool {
			return a.Serves(mine.Namespace, "") && !a.Serves(theirs.Namespace, "") && b.Serves(theirs.Namespace, "")
		}))

		if err := sharding.Shard(env.Informers, a,
			sharding.ResourceOf(env.Client.AppsV1().Deployments(metav1.NamespaceAll), sharding.Namespaced),
			sharding.ResourceOf(env.Client.AppsV1().ReplicaSets(metav1.NamespaceAll), sharding.Namespaced),
			sharding.ResourceOf(env.Client.CoreV1().Pods(metav1.NamespaceAll), sharding.Namespaced),
		); err != nil {
			t.Fatal(err)
		}
		copts, err := sharding.ControllerOptions(a, controller.Options[string]{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctrl, _, err := deployment.NewController(env.Client, env.Informers, record.NewFakeRecorder(100), deployment.Options{Controller: copts})
		if err != nil {
			t.Fatal(err)
		}
		if ctrl.NeedLeaderElection() {
			t.Error("a ring member's controller waits for leader election")
		}
		env.Start(ctrl)

		// A key the controller sees before the ring has counted its
		// object as listed comes back a little later (Listing): poll.
		replicaSets := func(ns string) int {
			rss, err := env.Client.AppsV1().ReplicaSets(ns).List(env.Context(), metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			return len(rss.Items)
		}
		testutil.Eventually(t, time.Minute, "a ReplicaSet in "+mine.Namespace, testutil.True(func() bool {
			synctest.Wait()
			return replicaSets(mine.Namespace) > 0
		}))
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
		Name: "deployments",
		Lease: lease.Config{Client: env.Client, Namespace: "kube-system", ID: id,
			LeaseDuration: 3 * time.Second, RenewDeadline: 2 * time.Second, RetryPeriod: 500 * time.Millisecond},
		Logger: logr.Discard(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// namespaceIn returns a namespace name that hashes into the lower (half
// 0) or upper (half 1) half of the hash space.
func namespaceIn(t *testing.T, half uint64) string {
	t.Helper()
	for i := range 1000 {
		ns := fmt.Sprintf("team-%d-apps", i)
		if sharding.KeyHash(ns, "")>>63 == half {
			return ns
		}
	}
	t.Fatalf("no namespace hashes into half %d", half)
	return ""
}
