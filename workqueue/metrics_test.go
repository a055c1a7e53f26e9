package workqueue

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeProvider()
		q := New(Options[string]{Name: "q", MetricsProvider: m})
		defer q.ShutDown()

		q.Add("a")
		q.Add("a") // coalesced: not an add
		q.Add("b")
		if got := m.counter("q", "depth"); got != 2 {
			t.Fatalf("depth = %v, want 2", got)
		}
		if got := m.counter("q", "adds"); got != 2 {
			t.Fatalf("adds = %v, want 2", got)
		}

		time.Sleep(3 * time.Second)
		a := mustGet(t, q)
		if got := m.counter("q", "depth"); got != 1 {
			t.Fatalf("depth after Get = %v, want 1", got)
		}
		if got := m.observations("q", "latency"); !slices.Equal(got, []float64{3}) {
			t.Fatalf("latency = %v, want [3]", got)
		}

		time.Sleep(2 * time.Second)
		synctest.Wait()
		if got := m.counter("q", "longest"); got < 1.5 || got > 2 {
			t.Fatalf("longest running = %v, want about 2 (refreshed every 0.5s)", got)
		}
		if got := m.counter("q", "unfinished"); got < 1.5 || got > 2 {
			t.Fatalf("unfinished work = %v, want about 2", got)
		}
		q.Done(a)
		if got := m.observations("q", "work"); !slices.Equal(got, []float64{2}) {
			t.Fatalf("work duration = %v, want [2]", got)
		}
		if got := m.counter("q", "unfinished"); got != 0 {
			t.Fatalf("unfinished work with nothing in flight = %v, want 0", got)
		}

		q.AddAfter("c", time.Second)
		q.AddRateLimited("d")
		if got := m.counter("q", "retries"); got != 2 {
			t.Fatalf("retries = %v, want 2", got)
		}
	})
}

func TestMetricsTimerStopsWhenNothingIsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{Name: "q", MetricsProvider: newFakeProvider()})
		defer q.ShutDown()
		q.Add("a")
		k := mustGet(t, q)
		if !q.timerIsRunning() {
			t.Fatalf("no timer refreshing unfinished work while a key is in flight")
		}
		q.Done(k)
		time.Sleep(time.Second)
		synctest.Wait()
		if q.timerIsRunning() {
			t.Fatalf("timer still running with nothing in flight or delayed")
		}
	})
}
