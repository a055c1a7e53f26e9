package workqueue

import (
	"math"
	"time"

	"k8s.io/utils/clock"
)

// unfinishedWorkPeriod is how often the unfinished-work gauges are refreshed
// while keys are in flight (client-go uses the same period).
const unfinishedWorkPeriod = int64(500 * time.Millisecond)

// timerNeededLocked makes sure the timer goroutine runs and wakes up by
// queue time at. It starts the goroutine only when there is something to
// wait for and pokes it only when the deadline moves earlier.
func (q *Queue[T]) timerNeededLocked(at int64) {
	if q.shuttingDown {
		return
	}
	if !q.timerRunning {
		q.timerRunning = true
		q.timerDeadline = math.MaxInt64
		q.timerDone.Add(1)
		go q.runTimer()
		return
	}
	if at < q.timerDeadline {
		q.timerDeadline = at
		select {
		case q.wake <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
}

// runTimer promotes delayed keys when they are due and refreshes the
// unfinished-work gauges. It exits as soon as neither is needed, so an idle
// queue has no goroutine; one timer is reused for its whole life.
func (q *Queue[T]) runTimer() {
	defer q.timerDone.Done()
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		q.mu.Lock()
		if q.shuttingDown {
			q.timerRunning = false
			q.mu.Unlock()
			return
		}
		now := q.now()
		q.promoteLocked(now)
		next := int64(math.MaxInt64)
		if len(q.waiting) > 0 {
			next = q.waiting[0].at
		}
		if q.metrics != nil && q.inFlight > 0 {
			next = min(next, q.metrics.refreshUnfinished(now))
		}
		if next == math.MaxInt64 {
			q.timerRunning = false
			q.mu.Unlock()
			return
		}
		q.timerDeadline = next
		q.mu.Unlock()

		d := time.Duration(next - now)
		if timer == nil {
			timer = q.clock.NewTimer(d)
		} else {
			timer.Reset(d)
		}
		if q.now() >= next {
			// The clock moved while the timer was being armed (a fake
			// clock stepped in between): the timer counts from the new
			// time and would fire late, so go round now instead.
			continue
		}
		select {
		case <-timer.C():
		case <-q.wake:
		case <-q.stop:
		}
	}
}

// promoteLocked makes every delayed key due by now ready (or held, if in
// flight), in ready-time order.
func (q *Queue[T]) promoteLocked(now int64) {
	for len(q.waiting) > 0 && q.waiting[0].at <= now {
		item := q.waiting[0]
		q.heapRemove(0)
		e := q.entries[item.key]
		q.readyFromWaitingLocked(item.key, e, e.prio)
	}
}

// stopTimer ends the timer goroutine, if any, and waits for it.
func (q *Queue[T]) stopTimer() {
	q.stopOnce.Do(func() { close(q.stop) })
	q.timerDone.Wait()
}
