package workqueue

import (
	"fmt"
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

// Trying Adds go back to Lock after quietLimit of them in a row found the
// lock free.
func TestTryingAddsReturnToLockWhenQuiet(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addTry)
	for i := range quietLimit - 1 {
		q.Add("k")
		if got := q.addMode.Load(); got != addTry {
			t.Fatalf("mode after %d quiet Adds = %d, want addTry until quietLimit", i+1, got)
		}
	}
	q.Add("k")
	if got := q.addMode.Load(); got != addLock {
		t.Fatalf("mode after quietLimit quiet Adds = %d, want addLock", got)
	}
}

// postBatch posts keys while the lock is held by the test and one Add
// waits for it, then releases the lock so the batch is applied.
func postBatch(t *testing.T, q *Queue[string], keys []string) {
	t.Helper()
	q.mu.Lock()
	var adds sync.WaitGroup
	adds.Go(func() { q.Add("waiter") })
	waitFor(t, "an Add to wait for the lock", func() bool { return q.addsWaiting.Load() == 1 })
	for _, k := range keys {
		q.Add(k)
	}
	if !q.posted.pendingLocked() {
		t.Fatal("Adds made while another Add waits did not post")
	}
	q.unlock()
	adds.Wait()
}

// Posted adds that are mostly new keys send Adds back to Lock, with a
// longer wait before the next probe; posted repeats of queued keys keep
// Adds trying the lock.
func TestPostedNewKeysStopPosting(t *testing.T) {
	keys := make([]string, judgeBatch)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
	}

	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addTry)
	postBatch(t, q, keys) // all new
	if got := q.addMode.Load(); got != addLock {
		t.Fatalf("mode after %d posted new keys = %d, want addLock", judgeBatch, got)
	}
	if q.addsToProbe != probeBackoff {
		t.Fatalf("addsToProbe = %d, want probeBackoff (%d)", q.addsToProbe, probeBackoff)
	}

	q.addMode.Store(addTry)
	postBatch(t, q, keys) // all queued already: they coalesce
	if got := q.addMode.Load(); got != addTry {
		t.Fatalf("mode after %d posted repeats = %d, want addTry", judgeBatch, got)
	}
	if got := q.Len(); got != judgeBatch+1 {
		t.Fatalf("Len = %d, want %d", got, judgeBatch+1)
	}
}
