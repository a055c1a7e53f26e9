package workqueue

import (
	"runtime"
	"sync/atomic"
)

// Posted adds: an Add that finds the queue's lock taken does not wait for
// it. It writes its key into a small ring and returns; whoever holds the
// lock applies the ring, oldest first, before its own operation and again
// right after unlocking. Under contention (many producers re-adding keys
// that are still queued) this turns a lock hand-off per add, which costs a
// goroutine park and wake-up, into a slot write, and the holder applies a
// batch in one critical section.
//
// Why a posted add is never lost or reordered:
//   - Posters publish in the order they reserved slots (post waits for
//     earlier posters to publish first), so once an Add returns, its key
//     and every key posted before it are published.
//   - Every operation that takes the lock applies the published keys first
//     (lock), so an Add followed by any other call, from the same goroutine
//     or one it synchronised with, sees the add applied, in order. (Done
//     is the exception that proves it: see Done.)
//   - A poster publishes its slot and then tries the lock. If that fails,
//     the lock was held at the time; the holder checks the ring after
//     unlocking (unlock), and so on down the chain of holders.
//   - The one holder that releases the lock without going through unlock is
//     a Get parking in Cond.Wait. It counts itself in parking and applies
//     the ring before it waits; a poster that sees parking > 0 after
//     publishing takes the lock (blocking) and applies the ring itself.
//     Both sides use sequentially consistent atomics, so at least one of
//     them sees the other.
// When the ring is full, Add takes the lock as usual.

// postedSlots is the ring's size: enough to absorb the adds that arrive
// while one critical section runs, small enough to cost little per queue.
const postedSlots = 256

// postedRing is a bounded multi-producer, single-consumer ring (producers:
// Add; consumer: the lock holder). Positions grow forever; slot pos%size
// holds position pos. A producer reserves pos (tail), writes the key, and
// publishes it (published: every position below it is written) once the
// positions before it are published. The consumer takes positions below
// published and advances head, which frees the slot for the next lap.
type postedRing[T comparable] struct {
	tail      atomic.Uint64 // next position to reserve
	published atomic.Uint64 // positions below are written
	_         [48]byte      // producers' line apart from the consumer's
	head      atomic.Uint64 // next position to apply; written under the lock
	// headOwned is head, read by the lock holder without an atomic load.
	headOwned uint64
	_         [48]byte
	slots     [postedSlots]T
}

// post writes key into a free slot and publishes it; false means the ring
// is full. A producer stopped between reserving and publishing holds up
// the ones after it (they yield until it publishes): the price of order.
// Had they returned, a key of theirs could be applied after a later
// operation (found by FuzzQueue: a key handed out twice for one add).
func (r *postedRing[T]) post(key T) bool {
	pos := r.tail.Load()
	for {
		if pos-r.head.Load() >= postedSlots {
			return false // full: the slot still holds a key from a lap ago
		}
		if r.tail.CompareAndSwap(pos, pos+1) {
			break
		}
		pos = r.tail.Load()
	}
	r.slots[pos%postedSlots] = key
	for r.published.Load() != pos {
		runtime.Gosched()
	}
	r.published.Store(pos + 1)
	return true
}

// pendingLocked reports whether a slot has been reserved and not yet
// applied. The caller holds the queue's lock, the only writer of head, so
// head is its own: one shared load.
func (r *postedRing[T]) pendingLocked() bool { return r.tail.Load() != r.headOwned }

// pending reports whether a slot has been reserved and not yet applied;
// for callers that do not hold the lock.
func (r *postedRing[T]) pending() bool { return r.tail.Load() != r.head.Load() }

// written reports whether a published key awaits the consumer. A slot
// reserved but not yet published does not count: its producer checks the
// lock after publishing it.
func (r *postedRing[T]) written() bool { return r.published.Load() != r.head.Load() }

// take returns the oldest published key, if any. The caller holds the
// queue's lock.
func (r *postedRing[T]) take() (key T, ok bool) {
	pos := r.headOwned
	if pos == r.published.Load() {
		return key, false
	}
	s := &r.slots[pos%postedSlots]
	key = *s
	var zero T
	*s = zero // do not keep the key reachable
	r.head.Store(pos + 1)
	r.headOwned = pos + 1
	return key, true
}

// lockedPath: the compiler does not inline lock and unlock into generic
// code, and a call on each side of every Add, Get and Done costs the
// single-goroutine cycle about 10 ns; so those three spell them out.

// mayHavePosted reports whether any Add may have posted. An Add sets
// addTry (sawContention) before it posts, and addTry, once set, stays; so
// while it is not set the ring is empty, and the checks around the lock
// cost one load instead of two on each side (benchmark d never leaves
// addLock).
func (q *Queue[T]) mayHavePosted() bool { return q.addMode.Load() >= addTry }

// lock takes the queue's lock and applies posted adds.
func (q *Queue[T]) lock() {
	q.mu.Lock()
	if q.mayHavePosted() && q.posted.pendingLocked() {
		q.applyPostedLocked()
	}
}

// unlock releases the queue's lock, then applies adds posted meanwhile if
// the lock is free (see the comment at the top).
func (q *Queue[T]) unlock() {
	q.mu.Unlock()
	if q.mayHavePosted() && q.posted.pending() {
		q.applyPostedAfterUnlock()
	}
}

//go:noinline
func (q *Queue[T]) applyPostedAfterUnlock() {
	// A producer that wrote its slot while the lock was held failed its
	// TryLock before this Unlock, so its write is visible here. One whose
	// slot is not written yet will try the lock after writing it.
	for q.posted.written() && q.mu.TryLock() {
		q.applyPostedLocked()
		q.mu.Unlock()
	}
}

// applyPostedLocked applies the posted adds, oldest first.
func (q *Queue[T]) applyPostedLocked() {
	for q.posted.pendingLocked() {
		key, ok := q.posted.take()
		if !ok {
			return
		}
		if !q.shuttingDown {
			q.addReadyLocked(key, PriorityNormal)
		}
	}
	q.noteBacklogLocked()
}

// addContended is Add when the lock is taken. The first Add to find it
// taken waits for it as usual: with one producer, waiting (the mutex spins
// briefly) is cheaper than handing each key to another CPU through the
// ring. Adds that find another Add already waiting post their key, or wait
// too when the ring is full or the backlog deep (see noteBacklogLocked).
func (q *Queue[T]) addContended(key T, mode int32) {
	postAll := mode == addPostAll
	if !postAll {
		q.sawContention()
	}
	wait := !postAll && (q.addsWaiting.Load() == 0 || q.deepBacklog.Load())
	if wait || !q.posted.post(key) {
		q.addsWaiting.Add(1)
		q.lock()
		q.addsWaiting.Add(-1)
		if !q.shuttingDown {
			q.addReadyLocked(key, PriorityNormal)
		}
		q.noteBacklogLocked()
		q.unlock()
		return
	}
	q.addContendedAfterPost(!postAll)
}

// addContendedAfterPost makes sure a key just posted gets applied: by this
// goroutine if the lock is free now, else by the holder's unlock, or, if a
// Get may be waiting (it releases the lock in Cond.Wait, not unlock), by
// taking the lock. Under addPostAll (tests) it does not try the lock: the
// key then waits for the next operation that takes it, so that the fuzzer
// drives the holders' side too (lock, unlock and the parking handshake).
func (q *Queue[T]) addContendedAfterPost(tryLock bool) {
	if tryLock && q.mu.TryLock() {
		q.applyPostedLocked()
		q.unlock()
		return
	}
	if q.parking.Load() > 0 {
		// A Get may be about to wait without seeing this key: apply it.
		q.lock()
		q.unlock()
	}
}
