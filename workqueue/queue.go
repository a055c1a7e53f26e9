package workqueue

import (
	"sync"
	"time"

	"github.com/go-logr/logr"
	clientgoworkqueue "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

var (
	_ clientgoworkqueue.TypedRateLimitingInterface[string] = (*Queue[string])(nil)
	_ Interface[string]                                    = (*Queue[string])(nil)
)

// Queue is a rate-limiting work queue with priorities and fairness lanes.
// Create it with New; its methods are safe for concurrent use.
//
// A key the queue holds is in one of these places (all guarded by mu):
//
//   - ready: an item in items, state itemReady, linked into ready, which
//     hands it out by (priority, lane round-robin, FIFO).
//   - in flight: an item in items, state itemInFlight, handed out by Get
//     and not yet Done.
//   - in flight and added again: an item in items, state itemRequeued;
//     Done links it into ready.
//   - waiting: a waitItem in waiting, with its ready time. A waiting key is
//     never ready or requeued as well (it may be in flight).
//
// So every key has at most one pending add, wherever it came from: a new
// add of a held key merges into it, keeping the earlier ready time and the
// higher priority. inFlight counts the items in flight (requeued or not),
// and a key is never handed out while it is in flight. After ShutDown no
// add is accepted and nothing waits.
type Queue[T comparable] struct {
	mu       sync.Mutex
	keyReady sync.Cond // Get waits here for a ready key
	idle     sync.Cond // ShutDownWithDrain waits here for inFlight == 0

	items    map[T]*item[T]
	ready    readyQueue[T]
	waiting  waitHeap[T]
	inFlight int

	clock      clock.WithTicker
	epoch      time.Time
	limiter    TypedRateLimiter[T]
	maxRetries int
	log        logr.Logger
	metrics    *queueMetrics[T] // nil: no metrics

	shuttingDown bool
	draining     bool

	timer queueTimer
}

// New returns an empty queue configured by opts.
func New[T comparable](opts Options[T]) *Queue[T] {
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	limiter := opts.RateLimiter
	if limiter == nil {
		limiter = defaultControllerRateLimiter[T](clk)
	}
	q := &Queue[T]{
		items:      make(map[T]*item[T]),
		ready:      newReadyQueue(opts.Lane, opts.StarvationLimit),
		waiting:    waitHeap[T]{byKey: make(map[T]*waitItem[T])},
		clock:      clk,
		epoch:      clk.Now(),
		limiter:    limiter,
		maxRetries: opts.MaxRetries,
		log:        opts.Logger,
		timer:      newQueueTimer(),
	}
	if opts.Name != "" {
		q.log = q.log.WithValues("queue", opts.Name)
	}
	q.keyReady.L = &q.mu
	q.idle.L = &q.mu
	if opts.MetricsProvider != nil {
		q.metrics = newQueueMetrics[T](opts.MetricsProvider, opts.Name)
	}
	return q
}

// now is the queue clock: nanoseconds since New.
func (q *Queue[T]) now() int64 { return int64(q.clock.Since(q.epoch)) }

// Get blocks until a key is ready and hands it out; the caller must call
// Done with it. It reports shutdown once the queue is shut down and no ready
// key is left.
func (q *Queue[T]) Get() (key T, shutdown bool) {
	key, _, shutdown = q.GetWithPriority()
	return key, shutdown
}

// GetWithPriority is Get that also returns the priority key was served at.
func (q *Queue[T]) GetWithPriority() (key T, priority int, shutdown bool) {
	key, priority, _, shutdown = q.GetWithWait()
	return key, priority, shutdown
}

// GetWithWait is GetWithPriority that also returns how long key was ready
// before it was handed out (the workqueue_queue_duration_seconds of this
// key): since it was added, a delayed key since its ready time, a key
// added while in flight since that add, as client-go counts it.
func (q *Queue[T]) GetWithWait() (key T, priority int, waited time.Duration, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.ready.len == 0 && !q.shuttingDown {
		q.keyReady.Wait()
	}
	if q.ready.len == 0 {
		return key, 0, 0, true
	}
	it := q.ready.pop()
	it.state = itemInFlight
	q.inFlight++
	now := q.now()
	if q.metrics != nil {
		q.metrics.handedOut(it.key, now, now-it.readyAt)
		q.timerNeededLocked(now + unfinishedWorkPeriod)
	}
	return it.key, int(it.priority), time.Duration(now - it.readyAt), false
}

// Done marks key as processed. If key was added again meanwhile, it becomes
// ready now (or stays delayed, if that add was delayed). Done of a key that
// is not in flight does nothing.
func (q *Queue[T]) Done(key T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	it, ok := q.items[key]
	if !ok || it.state == itemReady {
		return
	}
	if it.state == itemRequeued {
		q.ready.push(it)
		q.keyReady.Signal()
	} else {
		delete(q.items, key)
	}
	q.inFlight--
	if q.metrics != nil {
		q.metrics.done(key, q.now())
	}
	if q.inFlight == 0 && q.draining {
		q.idle.Broadcast()
	}
}

// Len returns the number of ready keys: what Get can hand out now. Delayed
// keys and keys held for re-processing after Done are not counted, as in
// client-go.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.ready.len
}

// Forget tells the rate limiter to stop tracking key (it succeeded or was
// given up on). It does not remove key from the queue.
func (q *Queue[T]) Forget(key T) { q.limiter.Forget(key) }

// NumRequeues returns how many rate-limited adds key has had since it was
// last forgotten.
func (q *Queue[T]) NumRequeues(key T) int { return q.limiter.NumRequeues(key) }

// ShutDown stops the queue: new adds are ignored, delayed keys are
// discarded, and Get hands out the keys that are ready, then reports
// shutdown. It does not wait for workers.
func (q *Queue[T]) ShutDown() {
	q.mu.Lock()
	q.shutDownLocked()
	q.draining = false
	q.idle.Broadcast()
	q.mu.Unlock()
	q.stopTimer()
}

// ShutDownWithDrain is ShutDown that also waits until no key is in flight.
// Workers must keep calling Done, or it waits forever; a ShutDown call from
// another goroutine ends the wait.
func (q *Queue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	q.shutDownLocked()
	q.draining = true
	for q.inFlight > 0 && q.draining {
		q.idle.Wait()
	}
	q.mu.Unlock()
	q.stopTimer()
}

func (q *Queue[T]) shutDownLocked() {
	q.shuttingDown = true
	q.waiting.clear()
	q.keyReady.Broadcast()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}
