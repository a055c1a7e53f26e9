package workqueue

import "sync/atomic"

// Posted adds: an Add that finds the queue's lock taken does not wait for
// it. It writes its key into a small ring and returns; whoever holds the
// lock applies the ring, oldest first, before its own operation and again
// right after unlocking. Under contention (many producers re-adding keys
// that are still queued) this turns a lock hand-off per add, which costs a
// goroutine park and wake-up, into a slot write, and the holder applies a
// batch in one critical section.
//
// Why a posted add is never lost or reordered:
//   - Every operation that takes the lock applies the ring first (lock), so
//     an Add followed by any other call from the same goroutine sees the
//     add applied, in order.
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
// Add; consumer: the lock holder). Each slot's seq says whose turn it is:
// pos for the producer that reserves position pos, pos+1 once its key is
// written, pos+postedSlots once the consumer has taken it.
type postedRing[T comparable] struct {
	tail atomic.Uint64 // next position to reserve
	_    [56]byte      // producers' line apart from the consumer's
	head atomic.Uint64 // next position to apply; written under the lock
	// headOwned is head, read by the lock holder without an atomic load.
	headOwned uint64
	_         [48]byte
	slots     [postedSlots]postedSlot[T]
}

type postedSlot[T comparable] struct {
	seq atomic.Uint64
	key T
}

func (r *postedRing[T]) init() {
	for i := range r.slots {
		r.slots[i].seq.Store(uint64(i))
	}
}

// post writes key into a free slot; false means the ring is full.
func (r *postedRing[T]) post(key T) bool {
	pos := r.tail.Load()
	for {
		s := &r.slots[pos%postedSlots]
		switch seq := s.seq.Load(); {
		case seq == pos:
			if r.tail.CompareAndSwap(pos, pos+1) {
				s.key = key
				s.seq.Store(pos + 1)
				return true
			}
			pos = r.tail.Load()
		case seq < pos:
			return false // full: the slot still holds a key from a lap ago
		default:
			pos = r.tail.Load() // another producer took pos
		}
	}
}

// pendingLocked reports whether a slot has been reserved and not yet
// applied. The caller holds the queue's lock, the only writer of head, so
// head is its own: one shared load.
func (r *postedRing[T]) pendingLocked() bool { return r.tail.Load() != r.headOwned }

// written reports whether the oldest pending slot holds its key already.
// A slot reserved but not yet written does not count: its producer checks
// the lock after writing it.
func (r *postedRing[T]) written() bool {
	pos := r.head.Load()
	return r.slots[pos%postedSlots].seq.Load() == pos+1
}

// take returns the oldest written key. It stops at a slot that is reserved
// but not yet written: its producer checks the lock after writing it.
// The caller holds the queue's lock.
func (r *postedRing[T]) take() (key T, ok bool) {
	pos := r.head.Load()
	s := &r.slots[pos%postedSlots]
	if s.seq.Load() != pos+1 {
		return key, false
	}
	key = s.key
	var zero T
	s.key = zero // do not keep the key reachable
	s.seq.Store(pos + postedSlots)
	r.head.Store(pos + 1)
	r.headOwned = pos + 1
	return key, true
}

// lockedPath: the compiler does not inline lock and unlock into generic
// code, and a call on each side of every Add, Get and Done costs the
// single-goroutine cycle about 10 ns; so those three spell them out.

// lock takes the queue's lock and applies posted adds.
func (q *Queue[T]) lock() {
	q.mu.Lock()
	if q.posted.pendingLocked() {
		q.applyPostedLocked()
	}
}

// unlock releases the queue's lock, then applies adds posted meanwhile if
// the lock is free (see the comment at the top).
func (q *Queue[T]) unlock() {
	// head only grows up to tail: if tail is still where head was, nothing
	// is pending, whoever holds the lock now.
	head := q.posted.headOwned
	q.mu.Unlock()
	if q.posted.tail.Load() != head {
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
	applied, keys := 0, len(q.entries)
	for q.posted.pendingLocked() {
		key, ok := q.posted.take()
		if !ok {
			break
		}
		applied++
		if !q.shuttingDown {
			q.addReadyLocked(key, PriorityNormal)
		}
	}
	if applied > 0 {
		q.appliedPostedLocked(applied, len(q.entries)-keys)
	}
}

// addContended is Add when the lock is taken. The first Add to find it
// taken waits for it as usual: with one producer, waiting (the mutex spins
// briefly) is cheaper than handing each key to another CPU through the
// ring. Adds that find another Add already waiting post their key, or wait
// too when the ring is full.
func (q *Queue[T]) addContended(key T, mode int32) {
	postAll := mode == addPostAll
	if !postAll {
		q.sawContention()
	}
	if (!postAll && q.addsWaiting.Load() == 0) || !q.posted.post(key) {
		q.addsWaiting.Add(1)
		q.lock()
		q.addsWaiting.Add(-1)
		q.quietAdds = 0
		if !q.shuttingDown {
			q.addReadyLocked(key, PriorityNormal)
		}
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
