package workqueue

import (
	"math"
	"time"
)

// Add makes key ready at PriorityNormal.
func (q *Queue[T]) Add(key T) {
	q.AddWithOpts(AddOpts{}, key)
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
	priority := clampPriority(o.Priority)
	for _, key := range keys {
		d := o.After
		if o.RateLimited {
			if q.maxRetries > 0 && q.limiter.NumRequeues(key) >= q.maxRetries {
				q.drop(key)
				continue
			}
			d = max(d, q.limiter.When(key)) // the limiter locks on its own
		}
		q.mu.Lock()
		q.addLocked(key, priority, d)
		q.mu.Unlock()
	}
}

// addLocked adds key at priority, ready after d. A positive delay counts as
// a retry, as in client-go.
func (q *Queue[T]) addLocked(key T, priority int32, d time.Duration) {
	if q.shuttingDown {
		return
	}
	if d <= 0 {
		q.addReadyLocked(key, priority)
		return
	}
	if q.metrics != nil {
		q.metrics.retries.Inc()
	}
	if it, ok := q.items[key]; ok && it.state != itemInFlight {
		q.addReadyLocked(key, priority) // ready sooner already: only the priority may rise
		return
	}
	now := q.now()
	at := now + int64(d)
	if at < now { // overflow: a delay of centuries is "never", not "now"
		at = math.MaxInt64 - 1
	}
	q.waiting.add(key, priority, at)
	q.timerNeededLocked(at)
}

// addReadyLocked makes key ready now, or requeued if it is in flight.
func (q *Queue[T]) addReadyLocked(key T, priority int32) {
	if p, ok := q.waiting.take(key); ok {
		priority = max(priority, p)
	}
	it, ok := q.items[key]
	if !ok {
		it = &item[T]{key: key, priority: priority}
		q.items[key] = it
	}
	switch {
	case !ok:
		q.addedLocked(it)
		q.ready.push(it)
		q.keyReady.Signal()
	case it.state == itemReady:
		if priority > it.priority {
			q.ready.raise(it, priority)
		}
	case it.state == itemRequeued:
		it.priority = max(it.priority, priority)
	case it.state == itemInFlight:
		it.state, it.priority = itemRequeued, priority
		q.addedLocked(it)
	}
}

// addedLocked accounts for a key that just became ready or requeued.
func (q *Queue[T]) addedLocked(it *item[T]) {
	it.readyAt = q.now()
	if q.metrics != nil {
		q.metrics.added()
	}
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
