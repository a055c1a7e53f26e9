package workqueue

// How Add takes the lock. Posting (posted.go) needs TryLock, to learn that
// the lock is taken. But TryLock reads the lock word before its
// compare-and-swap, and right after the previous operation's Unlock that
// read waits for the unlock to complete: on one goroutine doing
// Add→Get→Done, TryLock in every Add cost about 2 ns per cycle (benchmark
// d; the profile put the extra samples on that read). So Add uses Lock
// until a probe, once every probeEvery Adds, finds the lock taken; from
// then on Adds try the lock and post when it is taken. They do not go back:
// contention on a queue recurs, and a queue that left addTry after 1,024
// quiet Adds drained benchmark b at about client-go's speed against half of
// it for this one (4 runs each on a shared machine: indicative only).
//
// q.addMode says which (an atomic: Add reads it before taking the lock);
// addsToProbe is guarded by q.mu.
const (
	addLock    int32 = iota // Add takes the lock with Lock
	addProbe                // the next Add tries the lock, to see if it is free
	addTry                  // Adds contend: try the lock, post if it is taken
	addPostAll              // tests only: every Add posts (see FuzzQueue)
)

// probeEvery is how many Adds take the lock between two probes: a probe
// costs a few ns, and contention that lasts shorter than this is cheap
// enough with Lock.
const probeEvery = 256

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
	if mode == addProbe {
		q.addMode.CompareAndSwap(addProbe, addLock) // the lock was free
	}
	q.unlock()
}

// probeAddsLocked makes the next Add try the lock: it runs once every
// probeEvery Adds that took the lock with Lock.
func (q *Queue[T]) probeAddsLocked() {
	q.addsToProbe = probeEvery
	q.addMode.CompareAndSwap(addLock, addProbe)
}

// sawContention switches Adds to trying the lock: one found it taken.
func (q *Queue[T]) sawContention() {
	if m := q.addMode.Load(); m == addLock || m == addProbe {
		q.addMode.CompareAndSwap(m, addTry)
	}
}
