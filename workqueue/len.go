package workqueue

// Len returns the number of ready keys: what Get can hand out now. Delayed
// keys and keys held for re-processing after Done are not counted, as in
// client-go. Polling Len is cheap: after the first call it usually reads a
// published count instead of taking the queue's lock.
func (q *Queue[T]) Len() int {
	// Callers poll Len, some once per key (a worker checking whether the
	// queue has drained), and a lock taken only to read a number queues
	// them behind every Add, Get and Done. So the first call switches the
	// queue to storing its ready count in an atomic whenever the count
	// changes (under the lock; queues that never call Len pay one nil
	// check), and later calls read that; until then it holds -1. Posted
	// keys not yet applied are the exception: Len applies them first,
	// under the lock, so that the caller's own posted Add or Done is
	// counted.
	if n := q.readyCount.Load(); n >= 0 && !(q.mayHavePosted() && q.posted.pending()) {
		return int(n)
	}
	q.lock()
	n := q.ready.count
	if q.ready.published == nil {
		q.readyCount.Store(int64(n))
		q.ready.published = &q.readyCount
	}
	q.unlock()
	return n
}
