package workqueue

import "time"

// DoneAndGetReady is DoneTimed(done) followed, if a key is ready, by
// GetWithPriority, for a worker that asks for its next key as soon as it
// has finished one. The two share a critical section, so a worker with
// work waiting takes the queue's lock once per key instead of twice, and a
// queue with metrics reads its clock once for both: the end of done's work
// is the start of next's.
//
// It never blocks: ok is false when no key was ready (or the queue is shut
// down and empty), and the worker then calls Get as usual. That leaves the
// worker free to record done's outcome before it waits. elapsed and timed
// are DoneTimed's. When ok is true the caller must call Done (or
// DoneAndGetReady) with next, as after Get.
//
// done need not be in flight: as with Done, a key that is not is ignored.
func (q *Queue[T]) DoneAndGetReady(done T) (elapsed time.Duration, timed bool, next T, priority int, ok bool) {
	// Lock and unlock by hand: see lockedPath in posted.go. Posted keys are
	// applied before the Done, where DoneTimed applies them after: a posted
	// Add or Done and this Done leave the same state in either order.
	now, haveNow := q.metricsNow()
	q.mu.Lock()
	if q.mayHavePosted() && q.posted.pendingLocked() {
		q.applyPostedLocked()
	}
	elapsed, timed = q.doneAtLocked(done, now, haveNow)
	wait := int64(-1)
	if q.ready.count > 0 {
		next, priority, _, wait = q.getLocked(now, haveNow)
		ok = true
	}
	q.mu.Unlock()
	if q.mayHavePosted() && q.posted.pending() {
		q.applyPostedAfterUnlock()
	}
	if timed {
		q.metrics.observeWork(elapsed)
	}
	if wait >= 0 {
		q.metrics.observeHandOut(wait)
	}
	return elapsed, timed, next, priority, ok
}
