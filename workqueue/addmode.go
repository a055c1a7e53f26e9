package workqueue

// How Add takes the lock. Posting (posted.go) needs TryLock, to learn that
// the lock is taken. But TryLock reads the lock word before its
// compare-and-swap, and right after the previous operation's Unlock that
// read waits for the unlock to complete: on one goroutine doing
// Add→Get→Done, TryLock in every Add cost about 2 ns per cycle (benchmark
// d; the profile put the extra samples on that read). So Add uses Lock
// until Adds are seen to contend, tries the lock while they do, and looks
// for contention once every probeEvery Adds otherwise.
//
// q.addMode says which (an atomic: Add reads it before taking the lock);
// the counters below it are guarded by q.mu.
const (
	addLock    int32 = iota // Add takes the lock with Lock
	addProbe                // the next Add tries the lock, to see if it is free
	addTry                  // Adds contend: try the lock, post if it is taken
	addPostAll              // tests only: every Add posts (see FuzzQueue)
)

const (
	// probeEvery is how many Adds take the lock between two probes: a
	// probe costs a few ns, and contention that lasts shorter than this is
	// cheap enough with Lock.
	probeEvery = 256
	// quietLimit is how many Adds in a row must find the lock free before
	// Adds go back to Lock: a burst of contention comes in waves, and a
	// queue that left addTry too early would queue its producers on the
	// mutex again between waves.
	quietLimit = 1024
	// judgeBatch is how many posted adds are judged together; probeBackoff
	// how many Adds take the lock before the next probe once posted adds
	// were found to be mostly new keys.
	judgeBatch   = 64
	probeBackoff = 16 * probeEvery
)

// addTrying is Add in any mode but addLock: it tries the lock, and posts
// its key (posted.go) when the lock is taken.
func (q *Queue[T]) addTrying(key T, mode int32) {
	if mode == addPostAll || !q.mu.TryLock() {
		q.addContended(key, mode)
		return
	}
	q.applyPostedLocked()
	if !q.shuttingDown {
		q.addReadyLocked(key, PriorityNormal)
	}
	q.triedAddLocked(mode)
	q.unlock()
}

// probeAddsLocked makes the next Add try the lock: it runs once every
// probeEvery Adds that took the lock with Lock.
func (q *Queue[T]) probeAddsLocked() {
	q.addsToProbe = probeEvery
	q.addMode.CompareAndSwap(addLock, addProbe)
}

// triedAddLocked accounts for an Add that found the lock free in mode.
func (q *Queue[T]) triedAddLocked(mode int32) {
	switch mode {
	case addProbe:
		q.addMode.CompareAndSwap(addProbe, addLock)
	case addTry:
		if q.quietAdds++; q.quietAdds >= quietLimit {
			q.quietAdds = 0
			q.addMode.CompareAndSwap(addTry, addLock)
		}
	}
}

// sawContention switches Adds to trying the lock: one found it taken. It
// runs without the lock; the holder that later applies the posted key, or
// this Add once it gets the lock, resets quietAdds.
func (q *Queue[T]) sawContention() {
	if m := q.addMode.Load(); m == addLock || m == addProbe {
		q.addMode.CompareAndSwap(m, addTry)
	}
}

// appliedPostedLocked accounts for applied posted adds, fresh of which
// were keys new to the queue. Posting pays when adds coalesce: a repeat of
// a queued key costs its poster a slot write and the holder a map lookup,
// where waiting for the lock costs a park and a wake-up. Adds of new keys
// gain little from it: they only let producers run ahead of the workers,
// and the queue's arenas grow with that backlog (benchmark c, 200,000
// distinct keys: 3.5 times the bytes of the plain lock). So when most
// posted adds are new keys, Adds go back to the lock and probe less often.
func (q *Queue[T]) appliedPostedLocked(applied, fresh int) {
	q.quietAdds = 0 // Adds contend
	q.postedAdds += applied
	q.freshAdds += fresh
	if q.postedAdds < judgeBatch {
		return
	}
	if 2*q.freshAdds > q.postedAdds {
		q.addMode.CompareAndSwap(addTry, addLock)
		q.addsToProbe = probeBackoff
	}
	q.postedAdds, q.freshAdds = 0, 0
}
