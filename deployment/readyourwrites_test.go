package deployment

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// TestNewControllerReadsItsOwnWrites rolls a Deployment out on a cluster
// whose Deployment and ReplicaSet watches deliver every event late. Each
// pass's writes wake the Deployment again (a retry, its own events) before
// its caches hold them. A pass run then would read a cache without the new
// ReplicaSet and create it again (AlreadyExists), and would update status
// from a stale Deployment (Conflict). The controller holds the key until the
// informers have delivered the recorded writes instead. With one watch much
// later than the other, a hold on the other kind's writes alone would not
// be enough: each case fails if that kind's writes are not recorded.
func TestNewControllerReadsItsOwnWrites(t *testing.T) {
	tests := []struct {
		name                             string
		deploymentDelay, replicaSetDelay time.Duration
	}{
		{name: "ReplicaSet watch later", deploymentDelay: 50 * time.Millisecond, replicaSetDelay: 300 * time.Millisecond},
		{name: "Deployment watch later", deploymentDelay: 300 * time.Millisecond, replicaSetDelay: 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				testReadsOwnWrites(t, tt.deploymentDelay, tt.replicaSetDelay)
			})
		})
	}
}

func testReadsOwnWrites(t *testing.T, deploymentDelay, replicaSetDelay time.Duration) {
	d := newDeployment("web", 2)
	env := controllertest.New(t, d)
	env.DelayWatches("deployments", deploymentDelay)
	env.DelayWatches("replicasets", replicaSetDelay)
	staleStatusUpdates := countStaleStatusUpdates(env)
	reg := prometheus.NewRegistry()
	ctrl, _, err := NewController(env.Client, env.Informers, record.NewFakeRecorder(100),
		Options{Controller: controller.Options[string]{Registry: reg}})
	if err != nil {
		t.Fatal(err)
	}
	env.Start(ctrl)
	env.Advance(time.Minute)

	if n := countCreates(env.WriteActions(), "replicasets"); n != 1 {
		t.Errorf("%d ReplicaSet creates, want 1: a pass read a cache without the ReplicaSet it had created", n)
	}
	// The first pass writes status twice, the second on the
	// resourceVersion the first returned (writes.go). Any conflict is a
	// pass that read a stale Deployment.
	if n := staleStatusUpdates.Load(); n != 0 {
		t.Errorf("%d status updates from a stale Deployment, want 0", n)
	}
	if n := gathered(t, reg, "controller_runtime_reconcile_cache_hold_duration_seconds"); n < 1 {
		t.Errorf("%v holds, want at least 1 (the create pass's)", n)
	}
	if n := gathered(t, reg, "controller_runtime_reconcile_cache_hold_timeouts_total"); n != 0 {
		t.Errorf("%v holds hit the bound, want 0: the writes were delivered within %v", n, max(deploymentDelay, replicaSetDelay))
	}
	if n := gathered(t, reg, "controller_runtime_reconcile_cache_hold_keys"); n != 0 {
		t.Errorf("%v keys still held after a minute, want 0", n)
	}
	got, err := env.Client.AppsV1().Deployments(testNamespace).Get(env.Context(), d.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.ObservedGeneration != got.Generation || got.Status.Replicas != 0 || got.Annotations[RevisionAnnotation] != "1" {
		t.Errorf("final status %+v, revision %q: want generation %d observed, no replicas yet (no ReplicaSet controller), revision 1",
			got.Status, got.Annotations[RevisionAnnotation], got.Generation)
	}
}

// countStaleStatusUpdates counts the Deployment status updates that env's
// server refuses as conflicts: those whose resourceVersion is not the
// stored one.
func countStaleStatusUpdates(env *controllertest.Env) *atomic.Int32 {
	var stale atomic.Int32
	tracker := env.Client.Tracker()
	env.Client.PrependReactor("update", "deployments", func(action clienttesting.Action) (bool, runtime.Object, error) {
		update, ok := action.(clienttesting.UpdateAction)
		if !ok || action.GetSubresource() != "status" {
			return false, nil, nil
		}
		sent := update.GetObject().(*appsv1.Deployment)
		stored, err := tracker.Get(action.GetResource(), sent.Namespace, sent.Name)
		if err == nil && stored.(*appsv1.Deployment).ResourceVersion != sent.ResourceVersion {
			stale.Add(1)
		}
		return false, nil, nil // the server's semantics answer
	})
	return &stale
}

// gathered returns the value of the controller's series name in reg: a
// counter's or gauge's value, or a histogram's sample count.
func gathered(t *testing.T, reg prometheus.Gatherer, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() != "controller" || l.GetValue() != ControllerName {
					continue
				}
				switch {
				case m.GetHistogram() != nil:
					return float64(m.GetHistogram().GetSampleCount())
				case m.GetGauge() != nil:
					return m.GetGauge().GetValue()
				}
				return m.GetCounter().GetValue()
			}
		}
	}
	t.Fatalf("no series %s{controller=%q}", name, ControllerName)
	return 0
}
