package workqueue_test

import (
	"fmt"
	"strings"
	"sync"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// A worker loop: Get a key, process it, Done it. Errors go back with
// AddRateLimited; success Forgets the key's failures.
func Example() {
	q := workqueue.New(workqueue.Options[string]{Name: "example"})

	var mu sync.Mutex
	processed := map[string]int{}
	flakyDone := make(chan struct{})
	reconcile := func(key string) error {
		mu.Lock()
		defer mu.Unlock()
		processed[key]++
		if key != "default/flaky" {
			return nil
		}
		if processed[key] == 1 {
			return fmt.Errorf("transient failure")
		}
		close(flakyDone)
		return nil
	}

	var workers sync.WaitGroup
	for range 2 {
		workers.Go(func() {
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				if err := reconcile(key); err != nil {
					q.AddRateLimited(key) // retried after a short backoff
				} else {
					q.Forget(key)
				}
				q.Done(key)
			}
		})
	}

	q.Add("default/web")
	q.Add("default/flaky")
	q.Add("default/web") // coalesces with the queued one
	<-flakyDone
	q.ShutDownWithDrain()
	workers.Wait()
	fmt.Println("flaky processed", processed["default/flaky"], "times")
	// Output:
	// flaky processed 2 times
}

// Higher priorities first, FIFO within a priority; with a Lane function,
// namespaces take turns within a priority.
func Example_priorities() {
	q := workqueue.New(workqueue.Options[string]{
		Lane: func(key string) string { ns, _, _ := strings.Cut(key, "/"); return ns },
	})
	defer q.ShutDown()

	// The informer's initial list goes in at low priority ...
	q.AddWithOpts(workqueue.AddOpts{Priority: workqueue.PriorityLow}, "busy/a", "busy/b", "quiet/c")
	// ... real events at normal priority overtake it.
	q.Add("busy/1")
	q.Add("busy/2")
	q.Add("busy/3")
	q.Add("quiet/1")

	for q.Len() > 0 {
		key, priority, _ := q.GetWithPriority()
		fmt.Println(key, priority)
		q.Done(key)
	}
	// Output:
	// busy/1 0
	// quiet/1 0
	// busy/2 0
	// busy/3 0
	// busy/a -100
	// quiet/c -100
	// busy/b -100
}

// AddAfter delays a key; adding it again keeps the earlier time, so a key
// requeued for later and then changed now is processed once, now.
func Example_addAfter() {
	clock := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	q := workqueue.New(workqueue.Options[string]{Clock: clock})
	defer q.ShutDown()

	q.AddAfter("default/web", time.Minute)
	fmt.Println("ready now:", q.Len())

	clock.Step(time.Minute)
	key, _ := q.Get() // waits for the queue's timer to see the new time
	fmt.Println("after a minute:", key)
	q.Done(key)

	q.AddAfter("default/web", 5*time.Hour)
	q.Add("default/web")
	fmt.Println("ready now:", q.Len())
	// Output:
	// ready now: 0
	// after a minute: default/web
	// ready now: 1
}
