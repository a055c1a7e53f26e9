package workqueue

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestDoneAndGetReadyFinishesThenHandsOut: the key passed in is done (a
// re-add while it was in flight makes it ready again), and the next ready
// key is handed out in the same call.
func TestDoneAndGetReadyFinishesThenHandsOut(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Add("a")
	q.Add("b")
	a := mustGet(t, q)
	q.Add("a") // held for after Done

	_, _, next, _, ok := q.DoneAndGetReady(a)
	if !ok || next != "b" {
		t.Fatalf("DoneAndGetReady(a) = %q, %v; want b, true", next, ok)
	}
	_, _, next, _, ok = q.DoneAndGetReady(next)
	if !ok || next != "a" {
		t.Fatalf("DoneAndGetReady(b) = %q, %v; want a (re-added in flight), true", next, ok)
	}
	if _, _, next, _, ok = q.DoneAndGetReady(next); ok {
		t.Fatalf("DoneAndGetReady(a) on an empty queue handed out %q", next)
	}
	if err := q.checkInvariants(); err != nil {
		t.Fatal(err)
	}
	if q.Len() != 0 {
		t.Fatalf("Len = %d, want 0", q.Len())
	}
}

// TestDoneAndGetReadyDoesNotBlock: with nothing ready it returns at once,
// even with a key delayed, and a key not in flight is ignored.
func TestDoneAndGetReadyDoesNotBlock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.AddAfter("later", time.Hour)
		returned := make(chan bool)
		go func() {
			_, _, _, _, ok := q.DoneAndGetReady("never-handed-out")
			returned <- ok
		}()
		synctest.Wait()
		select {
		case ok := <-returned:
			if ok {
				t.Fatal("DoneAndGetReady handed out a key with none ready")
			}
		default:
			t.Fatal("DoneAndGetReady blocked with no key ready")
		}
	})
}

// TestDoneAndGetReadyAfterShutDown: a shut-down queue still hands out its
// ready keys, then reports none; DoneAndGetReady's Done ends a drain.
func TestDoneAndGetReadyAfterShutDown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		q.Add("b")
		a := mustGet(t, q)
		drained := startDrain(q)
		synctest.Wait()

		_, _, b, _, ok := q.DoneAndGetReady(a)
		if !ok || b != "b" {
			t.Fatalf("DoneAndGetReady after ShutDown = %q, %v; want b, true", b, ok)
		}
		if _, _, k, _, ok := q.DoneAndGetReady(b); ok {
			t.Fatalf("DoneAndGetReady handed out %q from an empty, shut-down queue", k)
		}
		synctest.Wait()
		if !isClosed(drained) {
			t.Fatal("ShutDownWithDrain still waiting after the last key was done")
		}
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get after the drain did not report shutdown")
		}
	})
}

// TestDoneAndGetReadyTimesBothKeysWithOneReading: with metrics, the end of
// one key's work is the start of the next's, and the metrics get the same
// values as Done and Get would give them.
func TestDoneAndGetReadyTimesBothKeysWithOneReading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeProvider()
		q := New(Options[string]{Name: "q", MetricsProvider: m})
		defer q.ShutDown()
		q.Add("a")
		q.Add("b")
		time.Sleep(time.Second)
		a := mustGet(t, q)
		time.Sleep(2 * time.Second)

		elapsed, timed, b, _, ok := q.DoneAndGetReady(a)
		if !ok || b != "b" {
			t.Fatalf("DoneAndGetReady = %q, %v; want b, true", b, ok)
		}
		if !timed || elapsed != 2*time.Second {
			t.Fatalf("DoneAndGetReady timed a as %v, %v; want 2s, true", elapsed, timed)
		}
		time.Sleep(500 * time.Millisecond)
		if elapsed, timed := q.DoneTimed(b); !timed || elapsed != 500*time.Millisecond {
			t.Fatalf("DoneTimed(b) = %v, %v; want 0.5s, true", elapsed, timed)
		}
		if got := m.observations("q", "work"); !slices.Equal(got, []float64{2, 0.5}) {
			t.Errorf("work durations = %v, want [2 0.5]", got)
		}
		if got := m.observations("q", "latency"); !slices.Equal(got, []float64{1, 3}) {
			t.Errorf("queue latencies = %v, want [1 3]", got)
		}
		if got := m.counter("q", "depth"); got != 0 {
			t.Errorf("depth = %v, want 0", got)
		}
	})
}
