package workqueue

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// holdLockWithAddWaiting takes q's lock, as a long critical section
// elsewhere would, and starts an Add of key that waits for it. The caller
// unlocks, then waits for the Add with the returned group.
func holdLockWithAddWaiting(t *testing.T, q *Queue[string], key string) *sync.WaitGroup {
	t.Helper()
	q.mu.Lock()
	var adds sync.WaitGroup
	adds.Go(func() { q.Add(key) })
	waitFor(t, "an Add to wait for the lock", func() bool { return q.addsWaiting.Load() == 1 })
	return &adds
}

// An Add that finds another Add already waiting for the lock posts its key
// and returns at once; the key is applied, in order, by the lock's next
// holder, and seen by the caller's next call.
func TestAddPostsWhileLockIsTaken(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addTry) // as once Adds were seen to contend

	waiter := holdLockWithAddWaiting(t, q, "first")

	q.Add("posted-1") // returns without the lock
	q.Add("posted-2")
	q.Add("first") // a repeat, posted too
	if !q.posted.pendingLocked() {
		t.Fatal("adds made while another Add waits were not posted")
	}
	q.unlock() // the holder applies posted adds after releasing
	waiter.Wait()

	if got := q.Len(); got != 3 {
		t.Fatalf("Len = %d after three distinct adds, want 3", got)
	}
	got := getAll(t, q, 3)
	seen := map[string]bool{}
	for _, k := range got {
		seen[k] = true
	}
	for _, k := range []string{"first", "posted-1", "posted-2"} {
		if !seen[k] {
			t.Errorf("key %s lost; handed out %v", k, got)
		}
	}
	if idx := func(k string) int {
		for i, g := range got {
			if g == k {
				return i
			}
		}
		return -1
	}; idx("posted-1") > idx("posted-2") {
		t.Errorf("posted adds out of order: %v", got)
	}
	if err := q.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}

// A full ring makes Add wait for the lock instead: no key is dropped.
func TestAddWaitsWhenPostedRingIsFull(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addTry)

	adds := holdLockWithAddWaiting(t, q, "first")
	for i := range postedSlots {
		q.Add(fmt.Sprintf("posted-%d", i))
	}
	adds.Go(func() { q.Add("overflow") }) // ring full: waits for the lock
	waitFor(t, "the overflowing Add to wait for the lock", func() bool { return q.addsWaiting.Load() == 2 })
	q.unlock()
	adds.Wait()

	if got, want := q.Len(), postedSlots+2; got != want {
		t.Fatalf("Len = %d, want %d", got, want)
	}
	if err := q.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}

// A Get about to wait applies posted adds first, and a poster that sees a
// waiting Get takes the lock itself: the posted key wakes the Get.
func TestPostedAddWakesWaitingGet(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	got := make(chan string, 1)
	go func() {
		k, _ := q.Get()
		got <- k
	}()
	waitFor(t, "Get to wait", func() bool { return q.parking.Load() == 1 })

	// Post directly, as an Add that lost the race for the lock would.
	if !q.posted.post("k", false) {
		t.Fatal("empty ring refused a key")
	}
	q.afterPost(true)
	if k := <-got; k != "k" {
		t.Fatalf("Get returned %q, want k", k)
	}
	q.Done("k")
}

// Once an Add returns, its key is visible to the next operation even when
// a poster before it has reserved a slot and not yet written it: the lock
// holder applies written slots past the unwritten one. (FuzzQueue found the
// case where an earlier version did not: the key was applied after a Get,
// and handed out twice for one add.) The stalled poster's key is applied by
// the first operation after it is written.
func TestReturnedAddIsVisibleDespiteAnEarlierUnfinishedPost(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addPostAll)

	stalled := q.posted.tail.Add(1) - 1 // a poster stopped before writing
	q.Add("later")                      // does not wait for the stalled one
	if n := q.Len(); n != 1 {
		t.Fatalf("Len right after Add returned = %d, want 1", n)
	}

	q.posted.write(stalled, "earlier", false) // the stalled poster finishes
	if n := q.Len(); n != 2 {
		t.Fatalf("Len after the stalled post was written = %d, want 2", n)
	}
	got := getAll(t, q, 2)
	if !slices.Contains(got, "earlier") || !slices.Contains(got, "later") {
		t.Fatalf("handed out %v, want earlier and later", got)
	}
	// Under addPostAll the Dones post too: the next operation applies them.
	if n := q.Len(); n != 0 {
		t.Fatalf("Len after both were done = %d, want 0", n)
	}
	if q.posted.pending() {
		t.Errorf("ring still has reserved slots after both were applied (head %d, tail %d)", q.posted.head.Load(), q.posted.tail.Load())
	}
}

// A Done that finds the lock taken posts its key and returns; the caller's
// next Get applies it first, so a key re-added while in flight is handed
// out again, and nothing is in flight twice.
func TestDonePostsWhileLockIsTaken(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addTry)
	q.Add("k")
	k := mustGet(t, q)
	q.Add("k") // re-added while in flight: held for after Done

	q.mu.Lock() // another operation holds the lock
	q.Done(k)   // does not wait for it
	if !q.posted.pendingLocked() {
		t.Fatal("a Done made while the lock was taken was not posted")
	}
	q.mu.Unlock() // released without applying, as a Get parking in Cond.Wait does

	if got := mustGet(t, q); got != "k" {
		t.Fatalf("Get after the posted Done = %q, want k", got)
	}
	q.Done("k")
	if n := q.Len(); n != 0 {
		t.Fatalf("Len after the second Done = %d, want 0", n)
	}
}

// ShutDownWithDrain parks in a Cond.Wait like a waiting Get: a Done posted
// while it waits must still end the wait.
func TestPostedDoneEndsShutDownWithDrain(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addPostAll) // every Add and Done posts
	q.Add("k")
	k := mustGet(t, q)

	drained := startDrain(q)
	waitFor(t, "ShutDownWithDrain to wait", func() bool { return q.parking.Load() == 1 })
	q.Done(k)
	waitFor(t, "ShutDownWithDrain to return after the posted Done", func() bool { return isClosed(drained) })
}

// Before Adds have been seen to contend (addLock, addProbe), lock holders
// do not look at the ring, so Done must not post: it waits for the lock.
// (FuzzQueue found a key lost when a Done posted during a probe; its input
// is kept in testdata/fuzz.)
func TestDoneDoesNotPostBeforeAddsContend(t *testing.T) {
	for _, mode := range []int32{addLock, addProbe} {
		q, _ := newTestQueue(t, Options[string]{})
		q.Add("k")
		k := mustGet(t, q)
		q.Add("k") // held for after Done
		q.addMode.Store(mode)

		q.mu.Lock()
		done := make(chan struct{})
		go func() {
			q.Done(k)
			close(done)
		}()
		// A Done that posts does so within microseconds; give it ample time.
		var posted, returned bool
		for i := 0; i < 50 && !posted && !returned; i++ {
			posted = q.posted.pending()
			select {
			case <-done:
				returned = true
			case <-time.After(time.Millisecond):
			}
		}
		q.mu.Unlock() // raw, as Cond.Wait releases it
		<-done
		if posted || returned {
			t.Fatalf("mode %d: Done posted (%v) or returned (%v) while the lock was held", mode, posted, returned)
		}
		if got := mustGet(t, q); got != "k" {
			t.Fatalf("mode %d: Get = %q, want k", mode, got)
		}
		q.Done("k")
	}
}

// Once Adds have been seen waiting for each other (several producers), a
// contended Add posts at once even when no other Add waits at that moment,
// for producerContentionAdds contended Adds; then the first contended Add
// waits for the lock again, as one producer's does.
func TestSeveralProducersPostAtOnce(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.addMode.Store(addTry)

	// One producer: the first contended Add waits for the lock.
	adds := holdLockWithAddWaiting(t, q, "first")
	if got := q.producerContention.Load(); got != 0 {
		t.Fatalf("contention budget %d before a second producer showed up", got)
	}
	q.Add("second") // another producer: posts, and marks producers as contending
	if got := q.producerContention.Load(); got != producerContentionAdds {
		t.Fatalf("contention budget %d after Adds met at the lock, want %d", got, producerContentionAdds)
	}
	q.unlock()
	adds.Wait()

	// No Add waits now, but producers contended lately: post at once.
	q.producerContention.Store(2)
	q.mu.Lock()
	q.Add("posted-1")
	q.Add("posted-2")
	if !q.posted.pendingLocked() {
		t.Fatal("contended adds did not post after producers contended")
	}
	// The budget is spent: the next contended Add waits for the lock.
	adds.Go(func() { q.Add("waits") })
	waitFor(t, "the Add after the budget to wait for the lock", func() bool { return q.addsWaiting.Load() == 1 })
	q.unlock()
	adds.Wait()

	if got := q.Len(); got != 5 {
		t.Fatalf("Len = %d after five distinct adds, want 5", got)
	}
	if err := q.checkInvariants(); err != nil {
		t.Fatal(err)
	}
}
