package workqueue

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestShutDownIgnoresAddsAndDrainsReadyKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		q.AddAfter("later", time.Minute)
		q.ShutDown()
		if !q.ShuttingDown() {
			t.Fatal("ShuttingDown = false after ShutDown")
		}
		q.Add("b")
		q.AddAfter("c", time.Second)
		q.AddWithOpts(AddOpts{Priority: 9}, "d")
		q.AddRateLimited("e")
		if got := q.Len(); got != 1 {
			t.Fatalf("Len = %d, want 1: adds after ShutDown are ignored", got)
		}
		if k := mustGet(t, q); k != "a" {
			t.Fatalf("Get = %q, want a", k)
		}
		time.Sleep(time.Hour)
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get did not report shutdown once the ready keys were gone")
		}
		q.Done("a")
	})
}

func TestShutDownWakesBlockedGets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		results := make(chan bool, 3)
		for range 3 {
			go func() {
				_, shutdown := q.Get()
				results <- shutdown
			}()
		}
		synctest.Wait()
		q.ShutDown()
		for range 3 {
			if !<-results {
				t.Fatal("a blocked Get returned a key instead of shutdown")
			}
		}
	})
}

func TestShutDownWithDrainWaitsForInFlightKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		k := mustGet(t, q)
		returned := startDrain(q)
		synctest.Wait()
		if isClosed(returned) {
			t.Fatal("ShutDownWithDrain returned with a key in flight")
		}
		if !q.ShuttingDown() {
			t.Fatal("ShuttingDown = false while draining")
		}
		q.Add("new") // ignored while draining
		q.Done(k)
		<-returned
		if _, shutdown := q.Get(); !shutdown {
			t.Fatal("Get after drain did not report shutdown")
		}
	})
}

func TestShutDownWithDrainReturnsAtOnceWhenIdle(t *testing.T) {
	q := New(Options[string]{})
	q.ShutDownWithDrain() // would hang the test if it waited
	if !q.ShuttingDown() {
		t.Fatal("ShuttingDown = false")
	}
}

func TestShutDownEndsADrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		q.Add("a")
		mustGet(t, q)
		returned := startDrain(q)
		synctest.Wait()
		q.ShutDown()
		<-returned
	})
}

func TestHeldKeyIsStillHandedOutAfterShutDown(t *testing.T) {
	// client-go semantics: a key re-added before ShutDown is processed.
	q := New(Options[string]{})
	q.Add("a")
	k := mustGet(t, q)
	q.Add("a")
	q.ShutDown()
	q.Done(k)
	if k2, shutdown := q.Get(); shutdown || k2 != "a" {
		t.Fatalf("Get = %q, %v; want a, false", k2, shutdown)
	}
	q.Done("a")
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get did not report shutdown")
	}
}

func TestShutDownTwiceIsFine(t *testing.T) {
	q := New(Options[string]{})
	q.AddAfter("a", time.Hour)
	q.ShutDown()
	q.ShutDownWithDrain()
	q.ShutDown()
}
