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
	q.noteBacklogLocked()
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

// deepBacklogKeys is the ready backlog past which Adds stop posting.
const deepBacklogKeys = 16 * 1024

// noteBacklogLocked sets q.deepBacklog while more than deepBacklogKeys keys
// are ready (clearing it below half that). Posting lets producers run
// ahead of the workers: it pays while their adds coalesce with queued
// keys, but a backlog of new keys only grows the queue's arenas. With
// 200,000 distinct keys (benchmark c) posting without a limit allocated 2.3
// to 3.7 times the bytes of the plain lock, and the bytes followed the
// peak of live nodes, not arena releases (0 to 5 per run either way). With
// this limit: 20 to 25 MB per op against 14 to 19 MB (medians of 5 or 6);
// the backlog still peaks higher than with the plain lock (39k to 91k live
// nodes against 15k to 28k in one instrumented series), though 85% of the
// Adds then took the free lock at once: why is not understood yet. Adds
// that try the lock run this, and so does whoever applies posted keys;
// Adds in addLock do not post, so they need not. 16k keeps benchmark b's
// 10,000 keys below it.
func (q *Queue[T]) noteBacklogLocked() {
	switch n := q.ready.count; {
	case n > deepBacklogKeys:
		if !q.deepBacklog.Load() {
			q.deepBacklog.Store(true)
		}
	case n < deepBacklogKeys/2:
		if q.deepBacklog.Load() {
			q.deepBacklog.Store(false)
		}
	}
}
