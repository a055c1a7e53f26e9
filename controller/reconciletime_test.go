package controller_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// TestReconcileTimeFollowsTheClock checks the reconcile time histogram
// measures on Options.Clock: the sum is exactly the fake time each
// Reconcile let pass, not the time keys waited in the queue, on the
// controller's own queue and on one the caller passes in.
func TestReconcileTimeFollowsTheClock(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ownQueue bool
	}{{"controller's queue", false}, {"caller's queue", true}} {
		t.Run(tc.name, func(t *testing.T) {
			reg := prometheus.NewPedanticRegistry()
			clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			steps := []time.Duration{1500 * time.Millisecond, 250 * time.Millisecond}
			n := 0
			opts := controller.Options[string]{Registry: reg, Clock: clk}
			if tc.ownQueue {
				opts.Queue = workqueue.New(workqueue.Options[string]{Clock: clk})
			}
			c, err := controller.New("timed", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
				clk.Step(steps[n])
				n++
				return controller.Result{}, nil
			}), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Queue().ShutDown()
			for _, key := range []string{"a", "b"} {
				c.Queue().Add(key)
				clk.Step(time.Hour) // time waiting in the queue must not count
				if !c.ProcessNextReady(context.Background()) {
					t.Fatalf("no key %q to process", key)
				}
			}
			count, sum := histogram(t, reg, "controller_runtime_reconcile_time_seconds", "timed")
			if count != 2 || sum != 1.75 {
				t.Errorf("reconcile time count %d sum %v, want 2 and 1.75", count, sum)
			}
			if got := metricValue(t, reg, "controller_runtime_active_workers", map[string]string{"controller": "timed"}); got != 0 {
				t.Errorf("active workers after the reconciles = %v, want 0", got)
			}
		})
	}
}

// TestWorkersTimeEachReconcile runs the worker loop itself (Run) with
// keys queued back to back: every reconcile is timed, exactly, and every
// key is done.
func TestWorkersTimeEachReconcile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		steps := map[string]time.Duration{"a": time.Second, "b": 250 * time.Millisecond, "c": 2 * time.Second}
		var mu sync.Mutex
		seen := map[string]int{}
		allDone := make(chan struct{})
		c, err := controller.New("timed", controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
			clk.Step(steps[key])
			mu.Lock()
			defer mu.Unlock()
			seen[key]++
			if len(seen) == len(steps) {
				close(allDone)
			}
			return controller.Result{}, nil
		}), controller.Options[string]{Registry: reg, Clock: clk, NeedLeaderElection: ptr.To(false)})
		if err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"a", "b", "c"} {
			c.Queue().Add(key)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error)
		go func() { ran <- c.Run(ctx) }()
		<-allDone
		synctest.Wait() // the worker's last observation and Done
		count, sum := histogram(t, reg, "controller_runtime_reconcile_time_seconds", "timed")
		if count != 3 || sum != 3.25 {
			t.Errorf("reconcile time count %d sum %v, want 3 and 3.25", count, sum)
		}
		if n := c.Queue().Len(); n != 0 {
			t.Errorf("Len after the reconciles = %d, want 0", n)
		}
		cancel()
		if err := <-ran; err != nil {
			t.Fatalf("Run = %v", err)
		}
		for key, n := range seen {
			if n != 1 {
				t.Errorf("%s reconciled %d times, want once", key, n)
			}
		}
	})
}

// histogram returns the sample count and sum of the series name{controller}.
func histogram(t *testing.T, reg prometheus.Gatherer, name, ctrl string) (uint64, float64) {
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
				if l.GetName() == "controller" && l.GetValue() == ctrl {
					return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
				}
			}
		}
	}
	t.Fatalf("no series %s{controller=%q}", name, ctrl)
	return 0, 0
}
