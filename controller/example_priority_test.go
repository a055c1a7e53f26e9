package controller_test

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// A reconciler that finds its key urgent asks for its next turn to come
// before the keys already waiting, with Result.Priority.
func ExampleResult_priority() {
	r := controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
		fmt.Println("reconciled", key)
		if key == "urgent" {
			// Retry soon, ahead of ordinary keys; the queue's starvation
			// guard still serves them if urgent keys keep coming.
			return controller.Result{Priority: new(10)}, fmt.Errorf("not there yet")
		}
		return controller.Result{}, nil
	})
	q := workqueue.New(workqueue.Options[string]{RateLimiter: workqueue.NewTypedMaxOfRateLimiter[string]() /* no backoff */})
	c, err := controller.New("example", r, controller.Options[string]{Queue: q, Logger: logr.Discard()})
	if err != nil {
		panic(err)
	}
	defer q.ShutDown()
	q.Add("urgent")
	c.ProcessNextReady(context.Background()) // fails, back at priority 10
	q.Add("ordinary")
	c.ProcessNextReady(context.Background())
	// Output:
	// reconciled urgent
	// reconciled urgent
}
