package workqueue

import (
	"sync/atomic"
)

// Posted adds: an Add that finds the queue's lock taken does not wait for
// it. It writes its key into a small ring and returns; whoever holds the
// lock applies the ring, oldest first, before its own operation and again
// right after unlocking. Under contention (many producers re-adding keys
// that are still queued) this turns a lock hand-off per add, which costs a
// goroutine park and wake-up, into a slot write, and the holder applies a
// batch in one critical section. Workers' Dones contend for the lock the
// same way, and post the same way (doneTrying); everything below holds for
// a posted Done as for a posted Add.
//
// Why a posted add is never lost:
//   - A poster writes its key into the slot it reserved, marks the slot
//     written and counts it in unapplied, all before it returns. The lock
//     holder applies every written slot between head and tail, skipping
//     slots reserved but not yet written: those Adds have not returned, so
//     they are concurrent with everything the holder does and have no place
//     in its order. So once an Add returns, its key is applied by the next
//     operation that takes the lock.
//   - Every operation that takes the lock applies the written keys first
//     (lock), so an Add followed by any other call, from the same goroutine
//     or one it synchronised with, sees the add applied. (Done is the
//     exception that proves it: see Done.)
//   - A poster writes its slot and then tries the lock. If that fails, the
//     lock was held at the time; the holder checks unapplied after
//     unlocking (unlock), and so on down the chain of holders.
//   - The holders that release the lock without going through unlock are
//     a Get parking in Cond.Wait and ShutDownWithDrain waiting for the
//     last Done. Each counts itself in parking and applies the ring before
//     it waits (parkLocked); a poster that sees parking > 0 after writing
//     takes the lock (blocking) and applies the ring itself. Both sides use
//     sequentially consistent atomics, so at least one of them sees the
//     other.
//   - Only Adds start posting (addmode.go: the first Add to find the lock
//     taken sets addTry), and holders check the ring only from then on;
//     so a Done posts only once the mode is addTry.
// When the ring is full, Add takes the lock as usual.

// postedSlots is the ring's size: enough to absorb the adds that arrive
// while one critical section runs, small enough to cost little per queue.
const postedSlots = 256

// postedRing is a bounded multi-producer, single-consumer ring (producers:
// Add; consumer: the lock holder). Positions grow forever; slot pos%size
// holds position pos. A producer reserves pos (tail), writes the key and
// marks the slot written (its state becomes 2*pos+1). The consumer applies
// written slots in position order, skipping unwritten ones, marks each
// applied (2*pos+2), and advances head over applied slots only, which frees
// them for the next lap: a producer reserves pos only while pos-head is
// under the ring's size, so the slot's previous lap has been applied.
type postedRing[T comparable] struct {
	tail      atomic.Uint64 // next position to reserve
	unapplied atomic.Int64  // slots written and not yet applied
	_         [48]byte      // producers' line apart from the consumer's
	head      atomic.Uint64 // first position not yet applied; written under the lock
	// headOwned is head, read by the lock holder without an atomic load.
	headOwned uint64
	_         [48]byte
	state     [postedSlots]atomic.Uint64
	slots     [postedSlots]T
	dones     [postedSlots]bool // the slot holds a Done, not an Add
}

// post writes key into a free slot; false means the ring is full. It never
// waits for other producers: one stopped between reserving and writing
// holds up nobody (the consumer skips its slot until it is written).
func (r *postedRing[T]) post(key T, done bool) bool {
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
	r.write(pos, key, done)
	return true
}

// write fills the reserved position pos with key and marks it written.
func (r *postedRing[T]) write(pos uint64, key T, done bool) {
	r.slots[pos%postedSlots] = key
	r.dones[pos%postedSlots] = done
	r.state[pos%postedSlots].Store(2*pos + 1)
	r.unapplied.Add(1)
}

// pendingLocked reports whether a slot has been reserved and not yet
// applied. The caller holds the queue's lock, the only writer of head, so
// head is its own: one shared load.
func (r *postedRing[T]) pendingLocked() bool { return r.tail.Load() != r.headOwned }

// pending reports whether a slot has been reserved and not yet applied;
// for callers that do not hold the lock.
func (r *postedRing[T]) pending() bool { return r.tail.Load() != r.head.Load() }

// written reports whether a written key awaits the consumer. A slot
// reserved but not yet written does not count: its producer checks the
// lock after writing it.
func (r *postedRing[T]) written() bool { return r.unapplied.Load() > 0 }

// takeAll hands every written, unapplied key between head and tail to
// apply, in position order, and advances head over the applied prefix.
// The caller holds the queue's lock.
func (r *postedRing[T]) takeAll(apply func(key T, done bool)) {
	tail := r.tail.Load()
	var zero T
	var applied int64
	for pos := r.headOwned; pos != tail; pos++ {
		st := &r.state[pos%postedSlots]
		if st.Load() != 2*pos+1 {
			continue // not written yet, or already applied
		}
		s := &r.slots[pos%postedSlots]
		key := *s
		*s = zero // do not keep the key reachable
		st.Store(2*pos + 2)
		applied++
		apply(key, r.dones[pos%postedSlots])
	}
	if applied > 0 {
		// Once per batch: unapplied shares its cache line with tail, which
		// every poster writes. Until this store it overstates, which only
		// costs a spare TryLock (see written).
		r.unapplied.Add(-applied)
	}
	head := r.headOwned
	for head != tail && r.state[head%postedSlots].Load() == 2*head+2 {
		head++
	}
	if head != r.headOwned {
		r.headOwned = head
		r.head.Store(head)
	}
}

// lockedPath: the compiler does not inline lock and unlock into generic
// code, and a call on each side of every Add, Get and Done costs the
// single-goroutine cycle about 10 ns; so Add, GetWithPriority and DoneTimed
// spell them out.

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

// applyPostedLocked applies the written posted adds, oldest first.
func (q *Queue[T]) applyPostedLocked() {
	q.posted.takeAll(q.applyPostedKeyLocked)
	q.noteBacklogLocked()
}

func (q *Queue[T]) applyPostedKeyLocked(key T, done bool) {
	if done {
		q.doneLocked(key)
		return
	}
	if !q.shuttingDown {
		q.addReadyLocked(key, PriorityNormal)
	}
}

// addContended is Add when the lock is taken. With one producer, it waits
// for the lock as usual: waiting (the mutex spins briefly) is cheaper than
// handing each key to another CPU through the ring, and in a controller
// whose worker parks between keys, posting at once cost 40% more CPU per
// event. Once several producers contend (producersContend), Adds post
// their key instead, or wait when the ring is full or the backlog deep
// (see noteBacklogLocked).
func (q *Queue[T]) addContended(key T, mode int32) {
	postAll := mode == addPostAll
	if !postAll {
		q.sawContention()
	}
	wait := !postAll && (!q.producersContend() || q.deepBacklog.Load())
	if wait || !q.posted.post(key, false) {
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
	q.afterPost(!postAll)
}

// producersContend reports whether Adds from several goroutines have
// contended for the lock lately: one waits for it now, or did within the
// last producerContentionAdds contended Adds. One producer whose Adds find
// the lock taken by workers is better off waiting for it (see
// addContended); several producers are better off posting at once, rather
// than each queueing behind the one that waits.
func (q *Queue[T]) producersContend() bool {
	if q.addsWaiting.Load() > 0 {
		if q.producerContention.Load() < producerContentionAdds/2 {
			q.producerContention.Store(producerContentionAdds)
		}
		return true
	}
	if q.producerContention.Load() <= 0 {
		return false
	}
	return q.producerContention.Add(-1) >= 0
}

// producerContentionAdds is how many contended Adds keep posting at once
// after Adds were last seen waiting for each other.
const producerContentionAdds = 4096

// afterPost makes sure a key just posted (by Add or Done) gets applied: by
// this goroutine if the lock is free now, else by the holder's unlock, or,
// if a Get or ShutDownWithDrain may be waiting (they release the lock in
// Cond.Wait, not unlock), by taking the lock. Under addPostAll (tests) it
// does not try the lock: the key then waits for the next operation that
// takes it, so that the fuzzer drives the holders' side too (lock, unlock
// and the parking handshake).
func (q *Queue[T]) afterPost(tryLock bool) {
	if tryLock && q.mu.TryLock() {
		q.applyPostedLocked()
		q.unlock()
		return
	}
	if q.parking.Load() > 0 {
		// A Get or a drain may be about to wait without seeing this key:
		// apply it.
		q.lock()
		q.unlock()
	}
}

// doneTrying is Done once Adds contend (addTry, or addPostAll). Workers'
// Dones contend for the lock as producers' Adds do, so a Done that finds
// it taken posts its key too. A posted Done and an Add of the same key
// leave the same state in either order (the key ready once, at the tail),
// and the caller's next Get applies the ring before it takes a key.
func (q *Queue[T]) doneTrying(key T, mode int32) {
	if mode != addPostAll && q.mu.TryLock() {
		q.doneLocked(key)
		q.unlock()
		return
	}
	if !q.posted.post(key, true) {
		q.lock() // the ring is full
		q.doneLocked(key)
		q.unlock()
		return
	}
	q.afterPost(mode != addPostAll)
}
