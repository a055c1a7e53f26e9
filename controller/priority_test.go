package controller_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// noBackoff retries failed keys at once, so that a test sees the order of
// hand-outs rather than the backoff.
type noBackoff struct{}

func (noBackoff) When(string) time.Duration { return 0 }
func (noBackoff) Forget(string)             {}
func (noBackoff) NumRequeues(string) int    { return 0 }

// A key requeued with Result.Priority above the others is handed out
// before keys that were ready before it, after RequeueAfter and after an
// error; and the starvation guard still serves the lower keys.
func TestResultPriority(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := workqueue.New(workqueue.Options[string]{Clock: clk, RateLimiter: noBackoff{}, StarvationLimit: 3})
	var order []string
	hotTurns := 0
	r := controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
		order = append(order, key)
		if key != "hot" {
			return controller.Result{}, nil
		}
		hotTurns++
		if hotTurns == 1 {
			return controller.Result{RequeueAfter: time.Second, Priority: new(10)}, nil
		}
		return controller.Result{Priority: new(10)}, errors.New("hot keeps failing")
	})
	c, err := controller.New("prio", r, controller.Options[string]{Queue: q, Clock: clk, Logger: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	defer q.ShutDown()
	ctx := context.Background()

	q.Add("hot")
	if !c.ProcessNextReady(ctx) {
		t.Fatal("no key to process")
	}
	q.Add("a")
	q.Add("b")
	q.Add("c")
	clk.Step(time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for q.Len() < 4 { // the queue's timer makes "hot" ready
		if time.Now().After(deadline) {
			t.Fatalf("hot not ready again after its RequeueAfter: %d ready", q.Len())
		}
		time.Sleep(time.Millisecond)
	}
	for range 16 {
		c.ProcessNextReady(ctx)
	}
	if order[1] != "hot" || order[2] != "hot" {
		t.Errorf("order %v: want hot (priority 10) served before a, b and c, after its RequeueAfter and after its error", order)
	}
	// hot is always ready at 10, a, b and c wait at 0: the guard lets each
	// through within the starvation limit plus one turn in four per key.
	for _, k := range []string{"a", "b", "c"} {
		if i := slices.Index(order, k); i < 0 || i > 1+3+4*3 {
			t.Errorf("order %v: %s served at hand-out %d; want the starvation guard to serve it by hand-out %d", order, k, i, 1+3+4*3)
		}
	}
}
