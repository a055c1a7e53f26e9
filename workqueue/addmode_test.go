package workqueue

import (
	"sync"
	"testing"
)

// Adds take the lock with Lock, and once every probeEvery Adds one tries
// it instead; a probe that finds the lock free changes nothing.
func TestAddsProbeForContentionEveryProbeEvery(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Add("k") // the first Add schedules a probe
	if got := q.addMode.Load(); got != addProbe {
		t.Fatalf("mode after the first Add = %d, want addProbe", got)
	}
	q.Add("k") // the probe: the lock is free
	if got := q.addMode.Load(); got != addLock {
		t.Fatalf("mode after a probe found the lock free = %d, want addLock", got)
	}
	for i := range probeEvery - 1 {
		q.Add("k")
		if got := q.addMode.Load(); got != addLock {
			t.Fatalf("mode after %d Adds = %d, want addLock until probeEvery", i+1, got)
		}
	}
	q.Add("k")
	if got := q.addMode.Load(); got != addProbe {
		t.Fatalf("mode after probeEvery Adds = %d, want addProbe", got)
	}
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1: repeats coalesce whatever the mode", got)
	}
}

// A probe that finds the lock taken makes Adds try the lock (and post)
// from then on; the probing Add itself waits and loses nothing.
func TestProbeFindingTheLockTakenSwitchesToTrying(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addProbe)

	q.mu.Lock()
	var adds sync.WaitGroup
	adds.Go(func() { q.Add("probe") })
	waitFor(t, "the probing Add to wait for the lock", func() bool { return q.addsWaiting.Load() == 1 })
	if got := q.addMode.Load(); got != addTry {
		t.Fatalf("mode after a probe found the lock taken = %d, want addTry", got)
	}
	q.Add("posted") // another Add waits already: this one posts
	if !q.posted.pendingLocked() {
		t.Fatal("an Add while another Add waits did not post in addTry")
	}
	q.unlock()
	adds.Wait()
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
}

// Once Adds contend they keep trying the lock, however many then find it
// free: contention recurs (see addmode.go).
func TestTryingAddsStayTrying(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addTry)
	for range 4 * probeEvery {
		q.Add("k")
	}
	if got := q.addMode.Load(); got != addTry {
		t.Fatalf("mode after quiet Adds = %d, want addTry", got)
	}
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1", got)
	}
}
