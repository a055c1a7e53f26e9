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
		q.lock()
		if q.shuttingDown {
			q.timerRunning = false
			q.unlock()
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
			q.unlock()
			return
		}
		q.timerDeadline = next
		q.unlock()

		if !q.armTimer(&timer, now, next) {
			continue // due already: go round and promote
		}
		select {
		case <-timer.C():
		case <-q.wake:
		case <-q.stop:
		}
	}
}

// timerSlack is how late the timer may fire because the clock moved while
// it was being armed. A real clock moves a little between any two reads; a
// fake clock moves in steps, and a step during arming must not delay the
// wake-up by the step's size.
const timerSlack = int64(time.Millisecond)

// armTimer sets *timer to fire at queue time next, read from the clock at
// now. It reports false if next has come already.
func (q *Queue[T]) armTimer(timer *clock.Timer, now, next int64) bool {
	for {
		d := time.Duration(next - now)
		if *timer == nil {
			*timer = q.clock.NewTimer(d)
		} else {
			// Drop a firing we did not wait for: a fake clock's timer
			// channel holds one value, and a full one blocks its Step.
			select {
			case <-(*timer).C():
			default:
			}
			(*timer).Reset(d)
		}
		// The timer counts d from the clock's time when it was armed.
		armed := q.now()
		if armed >= next {
			return false
		}
		if armed-now <= timerSlack {
			return true
		}
		now = armed
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
