package workqueue

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestNoTimerGoroutineWhileNothingWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.Add("a")
		q.Done(mustGet(t, q))
		if q.timerIsRunning() {
			t.Fatal("timer goroutine running with nothing delayed")
		}
		q.AddAfter("b", time.Second)
		q.AddAfter("c", time.Hour)
		if !q.timerIsRunning() {
			t.Fatal("no timer goroutine with delayed keys")
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if q.timerIsRunning() {
			t.Fatal("timer goroutine still running after every delayed key became ready")
		}
		if got := q.Len(); got != 2 {
			t.Fatalf("Len = %d, want 2", got)
		}
	})
}

func TestEarlierDelayWakesTheTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.AddAfter("late", time.Hour)
		synctest.Wait() // the timer sleeps until the hour is up
		q.AddAfter("soon", time.Second)
		time.Sleep(time.Second)
		synctest.Wait()
		if got := q.Len(); got != 1 {
			t.Fatalf("Len after 1s = %d, want 1", got)
		}
	})
}

func TestReAddOfQueuedKeyDoesNotAllocate(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{Lane: namespaceOf})
	q.Add("ns/ready")
	q.AddWithOpts(AddOpts{Priority: 5}, "ns/high")
	q.AddAfter("ns/waiting", time.Hour)
	for name, add := range map[string]func(){
		"Add ready":           func() { q.Add("ns/ready") },
		"AddAfter ready":      func() { q.AddAfter("ns/ready", time.Minute) },
		"AddWithOpts lower":   func() { q.AddWithOpts(AddOpts{Priority: 1}, "ns/high") },
		"AddAfter waiting":    func() { q.AddAfter("ns/waiting", 2*time.Hour) },
		"AddWithOpts waiting": func() { q.AddWithOpts(AddOpts{After: 3 * time.Hour}, "ns/waiting") },
	} {
		if allocs := testing.AllocsPerRun(100, add); allocs != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, allocs)
		}
	}
}
