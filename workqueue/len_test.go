package workqueue

import (
	"sync"
	"testing"
	"time"
)

// TestLenTracksTheReadyCountWithoutTheLock: after the first Len, later
// calls read the published count, which follows every add, hand-out and
// Done; delayed and held keys are not counted.
func TestLenTracksTheReadyCountWithoutTheLock(t *testing.T) {
	q, clk := newTestQueue(t, Options[string]{})
	if n := q.Len(); n != 0 {
		t.Fatalf("Len of a new queue = %d", n)
	}
	if q.readyCount.Load() < 0 {
		t.Fatal("the first Len did not switch the queue to publishing its count")
	}
	check := func(step string, want int) {
		t.Helper()
		q.mu.Lock()
		locked := q.ready.count
		q.mu.Unlock()
		if n := q.Len(); n != want || locked != want {
			t.Fatalf("%s: Len = %d, ready count = %d, want %d", step, n, locked, want)
		}
	}
	q.Add("a")
	q.Add("b")
	q.Add("a")
	check("two adds", 2)
	q.AddAfter("c", time.Second)
	check("a delayed add", 2)
	a := mustGet(t, q)
	check("a hand-out", 1)
	q.Add(a)
	check("a key re-added in flight (held)", 1)
	q.Done(a)
	check("Done of a held key", 2)
	clk.Step(time.Second)
	waitFor(t, "the delayed key", func() bool { return q.Len() == 3 })
	getAll(t, q, 3)
	check("all done", 0)
}

// TestLenCountsTheCallersPostedAdd: an Add that posted its key returns
// before the key is applied; the same goroutine's Len still counts it.
func TestLenCountsTheCallersPostedAdd(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Len() // publish
	q.addMode.Store(addPostAll)
	q.Add("a")
	if !q.posted.pending() {
		t.Fatal("the Add did not post (the test needs it to)")
	}
	if n := q.Len(); n != 1 {
		t.Fatalf("Len after a posted Add = %d, want 1", n)
	}
}

// TestLenWhileWorkersRun: concurrent producers, workers and Len readers
// (run with -race); once everything is done, Len agrees with the queue.
func TestLenWhileWorkersRun(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 500 {
				q.Add(string(rune('a' + (w*500+i)%26)))
				if n := q.Len(); n < 0 || n > 26 {
					t.Errorf("Len = %d, outside 0..26", n)
					return
				}
			}
		})
	}
	var workers sync.WaitGroup
	for range 2 {
		workers.Go(func() {
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				q.Done(k)
			}
		})
	}
	wg.Wait()
	waitFor(t, "the workers to drain the queue", func() bool { return q.Len() == 0 })
	q.ShutDownWithDrain()
	workers.Wait()
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.ready.count != 0 || q.readyCount.Load() != 0 {
		t.Fatalf("ready count %d, published %d after draining", q.ready.count, q.readyCount.Load())
	}
}
