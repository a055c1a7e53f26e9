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

// TestDoneTimedReportsTheTimeInFlight: with metrics, DoneTimed returns the
// time from hand-out to Done, the value workqueue_work_duration_seconds
// gets; without metrics, or for a key not in flight, it reports none.
func TestDoneTimedReportsTheTimeInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeProvider()
		q := New(Options[string]{Name: "q", MetricsProvider: m})
		defer q.ShutDown()
		q.Add("a")
		time.Sleep(time.Minute) // queued, not in flight
		a := mustGet(t, q)
		time.Sleep(1500 * time.Millisecond)
		elapsed, timed := q.DoneTimed(a)
		if !timed || elapsed != 1500*time.Millisecond {
			t.Errorf("DoneTimed = %v, %v; want 1.5s, true", elapsed, timed)
		}
		if got := m.observations("q", "work"); !slices.Equal(got, []float64{1.5}) {
			t.Errorf("work duration = %v, want [1.5]", got)
		}
		if elapsed, timed := q.DoneTimed("a"); timed || elapsed != 0 {
			t.Errorf("DoneTimed of a key not in flight = %v, %v; want 0, false", elapsed, timed)
		}

		plain := New(Options[string]{})
		defer plain.ShutDown()
		plain.Add("b")
		b := mustGet(t, plain)
		time.Sleep(time.Second)
		if elapsed, timed := plain.DoneTimed(b); timed || elapsed != 0 {
			t.Errorf("DoneTimed without metrics = %v, %v; want 0, false", elapsed, timed)
		}
		if plain.Len() != 0 {
			t.Errorf("Len after DoneTimed = %d, want 0", plain.Len())
		}
	})
}

// TestHandOutNeverReportsANegativeWait: Get reads the clock before it
// takes the lock, so a key can become ready after that reading, while the
// Get waits for the lock. Its queue latency must not come out negative.
func TestHandOutNeverReportsANegativeWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeProvider()
		q := New(Options[string]{Name: "q", MetricsProvider: m})
		defer q.ShutDown()
		before := q.now() // what a Get read before the lock
		time.Sleep(time.Second)
		q.Add("a") // ready a second later, while that Get waited
		q.mu.Lock()
		key, _, _, wait := q.getLocked(before, true)
		q.mu.Unlock()
		q.metrics.observeHandOut(wait)
		if key != "a" || wait != 0 {
			t.Fatalf("getLocked = %q with a wait of %v, want a with 0", key, time.Duration(wait))
		}
		time.Sleep(time.Second)
		if elapsed, timed := q.DoneTimed(key); !timed || elapsed != time.Second {
			t.Fatalf("DoneTimed = %v, %v; want 1s from the hand-out, true", elapsed, timed)
		}
	})
}
