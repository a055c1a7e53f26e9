package workqueue

import (
	"math"
	"time"
)

// Add makes key ready at PriorityNormal.
func (q *Queue[T]) Add(key T) {
	if mode := q.addMode.Load(); mode != addLock {
		q.addTrying(key, mode) // see addmode.go
		return
	}
	// Lock and unlock by hand (see lockedPath in posted.go). No posted adds
	// to apply first: in addLock, none was made before this Add began (see
	// mayHavePosted), and any made since are concurrent with it.
	q.mu.Lock()
	if !q.shuttingDown {
		q.addReadyLocked(key, PriorityNormal)
	}
	if q.addsToProbe--; q.addsToProbe <= 0 {
		q.probeAddsLocked()
	}
	q.mu.Unlock()
	if q.mayHavePosted() && q.posted.pending() {
		q.applyPostedAfterUnlock()
	}
}

// AddAfter makes key ready after d, at PriorityNormal. If key is already
// queued, it keeps the earlier of the two ready times.
func (q *Queue[T]) AddAfter(key T, d time.Duration) {
	q.AddWithOpts(AddOpts{After: d}, key)
}

// AddRateLimited makes key ready after the delay its rate limiter gives, at
// PriorityNormal. With Options.MaxRetries set, a key that has reached it is
// dropped instead.
func (q *Queue[T]) AddRateLimited(key T) {
	q.AddWithOpts(AddOpts{RateLimited: true}, key)
}

// AddWithOpts adds keys as o describes.
func (q *Queue[T]) AddWithOpts(o AddOpts, keys ...T) {
	prio := clampPriority(o.Priority)
	if !o.RateLimited {
		// One lock for the lot: the delay is the same for every key.
		q.lock()
		for _, key := range keys {
			if q.shuttingDown {
				break
			}
			q.addLocked(key, prio, o.After)
		}
		q.unlock()
		return
	}
	for _, key := range keys {
		if q.maxRetries > 0 && q.limiter.NumRequeues(key) >= q.maxRetries {
			q.drop(key)
			continue
		}
		d := max(o.After, q.limiter.When(key)) // the limiter locks on its own
		q.lock()
		if !q.shuttingDown {
			q.addLocked(key, prio, d)
		}
		q.unlock()
	}
}

// addLocked adds key at prio, ready after d. A positive delay counts as a
// retry, as in client-go.
func (q *Queue[T]) addLocked(key T, prio int32, d time.Duration) {
	if d <= 0 {
		q.addReadyLocked(key, prio)
		return
	}
	if q.metrics != nil {
		q.metrics.retries.Inc()
	}
	now := q.now()
	at := now + int64(d)
	if at < now { // overflow: a delay of centuries is "never", not "now"
		at = math.MaxInt64 - 1
	}
	q.addWaitingLocked(key, prio, at)
}

// drop gives up on a key that reached MaxRetries.
func (q *Queue[T]) drop(key T) {
	retries := q.limiter.NumRequeues(key)
	q.limiter.Forget(key)
	q.log.Info("Dropping key: it reached the queue's MaxRetries", "key", key, "retries", retries)
	if q.metrics != nil {
		q.metrics.dropped.Inc()
	}
}

// addReadyLocked makes key ready now (or held, if in flight).
func (q *Queue[T]) addReadyLocked(key T, prio int32) {
	e, ok := q.entries[key]
	if !ok {
		n := q.ready.push(key, prio, q.readyTime())
		q.entries[key] = nodeEntry(n)
		q.addedLocked()
		return
	}
	if !e.waiting() {
		q.readdNodeLocked(e.index(), prio)
		return
	}
	q.heapRemove(e.index())
	q.readyFromWaitingLocked(key, e, max(prio, e.prio))
}

// readdNodeLocked adds a key that has a node again: a ready key may rise in
// priority, an in-flight key is held for after Done. No map operation.
func (q *Queue[T]) readdNodeLocked(n uint32, prio int32) {
	node := &q.ready.nodes[n]
	switch node.state {
	case nodeReady:
		if prio > node.prio {
			q.ready.move(n, prio)
		}
	case nodeHeld:
		node.prio = max(node.prio, prio)
	case nodeInFlight:
		node.state, node.prio, node.readyAt = nodeHeld, prio, q.readyTime()
		if q.metrics != nil {
			q.metrics.added()
		}
	}
}

// readyFromWaitingLocked makes a key that just left the delay heap ready, or
// held if it is in flight.
func (q *Queue[T]) readyFromWaitingLocked(key T, e entry, prio int32) {
	if !e.inFlight() {
		n := q.ready.push(key, prio, q.readyTime())
		q.entries[key] = nodeEntry(n)
		q.addedLocked()
		return
	}
	n := q.ready.alloc(key, q.readyTime())
	node := &q.ready.nodes[n]
	node.state, node.prio = nodeHeld, prio
	q.entries[key] = nodeEntry(n)
	if q.metrics != nil {
		q.metrics.added()
	}
}

// addedLocked accounts for a key that just became ready and wakes a Get.
func (q *Queue[T]) addedLocked() {
	if q.metrics != nil {
		q.metrics.added()
	}
	q.wakeLocked()
}

// wakeLocked wakes a blocked Get for a newly ready key, unless enough
// waiters are already on their way: a wake-up costs a context switch, and a
// woken Get that finds nothing left goes straight back to sleep.
func (q *Queue[T]) wakeLocked() {
	if q.getWaiters > q.wakesPending && q.ready.count > q.wakesPending {
		q.wakesPending++
		q.readyCond.Signal()
	}
}

// readyTime stamps ready nodes for the latency metric, only when it exists.
func (q *Queue[T]) readyTime() int64 {
	if q.metrics == nil {
		return 0
	}
	return q.now()
}

// addWaitingLocked makes key ready at the queue time at, unless it is
// ready sooner already.
func (q *Queue[T]) addWaitingLocked(key T, prio int32, at int64) {
	e, ok := q.entries[key]
	if !ok {
		i := q.heapPush(key, at)
		q.entries[key] = waitingEntry(i, prio, false)
		q.timerNeededLocked(at)
		return
	}
	if !e.waiting() {
		n := e.index()
		if q.ready.nodes[n].state != nodeInFlight {
			// Ready already, which is sooner; only the priority may rise.
			q.readdNodeLocked(n, prio)
			return
		}
		// In flight, nothing pending: wait, then become held or ready.
		q.ready.free(n)
		i := q.heapPush(key, at)
		q.entries[key] = waitingEntry(i, prio, true)
		q.timerNeededLocked(at)
		return
	}
	i := e.index()
	if at < q.waiting[i].at {
		q.waiting[i].at = at
		i = q.heapUp(int(i))
		q.timerNeededLocked(at)
	} else if prio <= e.prio {
		return // nothing changes: no map write
	}
	q.entries[key] = waitingEntry(i, max(prio, e.prio), e.inFlight())
}
