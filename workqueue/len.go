package workqueue

// Len returns the number of ready keys: what Get can hand out now. Delayed
// keys and keys held for re-processing after Done are not counted, as in
// client-go.
//
// Callers poll Len, some once per key (a worker checking whether the queue
// has drained), and a lock taken only to read a number queues them behind
// every Add, Get and Done. So the first call switches the queue to
// publishing its ready count in an atomic whenever the count changes (a
// store under the lock, which queues that never call Len do not pay), and
// later calls read that, unless posted keys await the lock's holder: those
// are applied first, so that a caller's own posted Add is counted.
func (q *Queue[T]) Len() int {
	if q.lenPublished.Load() && !(q.mayHavePosted() && q.posted.pending()) {
		return int(q.readyCount.Load())
	}
	q.lock()
	n := q.ready.count
	if q.ready.published == nil {
		q.readyCount.Store(int64(n))
		q.ready.published = &q.readyCount
		q.lenPublished.Store(true)
	}
	q.unlock()
	return n
}
