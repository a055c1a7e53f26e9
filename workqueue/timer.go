package workqueue

import (
	"math"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// unfinishedWorkPeriod is how often the unfinished-work gauges are refreshed
// while keys are in flight (client-go uses the same period).
const unfinishedWorkPeriod = int64(500 * time.Millisecond)

// queueTimer is the state of the queue's one timer goroutine, which runs
// only while a key is delayed or (with metrics) in flight. running and
// deadline are guarded by the Queue's mutex.
type queueTimer struct {
	running  bool
	deadline int64 // the goroutine's next wake-up
	wake     chan struct{}
	stop     chan struct{}
	stopOnce sync.Once
	done     sync.WaitGroup
}

func newQueueTimer() queueTimer {
	return queueTimer{wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

// timerNeededLocked makes sure the timer goroutine runs and wakes up by
// queue time at. It starts the goroutine only when there is something to
// wait for and pokes it only when the deadline moves earlier.
func (q *Queue[T]) timerNeededLocked(at int64) {
	if q.shuttingDown {
		return
	}
	t := &q.timer
	if !t.running {
		t.running = true
		t.deadline = math.MaxInt64
		t.done.Add(1)
		go q.runTimer()
		return
	}
	if at < t.deadline {
		t.deadline = at
		select {
		case t.wake <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
}

// runTimer promotes delayed keys when they are due and refreshes the
// unfinished-work gauges. It exits as soon as neither is needed, so an idle
// queue has no goroutine; one timer is reused for its whole life.
func (q *Queue[T]) runTimer() {
	t := &q.timer
	defer t.done.Done()
	var timer clock.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		q.mu.Lock()
		if q.shuttingDown {
			t.running = false
			q.mu.Unlock()
			return
		}
		now := q.now()
		for w, ok := q.waiting.popDue(now); ok; w, ok = q.waiting.popDue(now) {
			q.addReadyLocked(w.key, w.priority)
		}
		next := int64(math.MaxInt64)
		if q.waiting.Len() > 0 {
			next = q.waiting.next()
		}
		if q.metrics != nil && q.inFlight > 0 {
			next = min(next, q.metrics.refreshUnfinished(now))
		}
		if next == math.MaxInt64 {
			t.running = false
			q.mu.Unlock()
			return
		}
		t.deadline = next
		q.mu.Unlock()

		if !q.armTimer(&timer, now, next) {
			continue // due already: go round and promote
		}
		select {
		case <-timer.C():
		case <-t.wake:
		case <-t.stop:
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

// stopTimer ends the timer goroutine, if any, and waits for it.
func (q *Queue[T]) stopTimer() {
	q.timer.stopOnce.Do(func() { close(q.timer.stop) })
	q.timer.done.Wait()
}
