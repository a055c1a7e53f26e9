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

// Queue is a rate-limiting work queue with priorities and fairness lanes. See
// the package documentation for its guarantees. Create it with New; its
// methods are safe for concurrent use.
//
// Invariants (under mu): every key in the queue has exactly one entry, which
// points at either its ready-queue node (state ready, in flight, or held) or
// its delay-heap item; a key is in flight iff its node is in flight or held,
// or its waiting entry has the in-flight bit; inFlight counts those keys and
// ready.count the ready ones.
type Queue[T comparable] struct {
	mu         sync.Mutex
	readyCond  sync.Cond // Get waits here for a ready key
	idleCond   sync.Cond // ShutDownWithDrain waits here for inFlight == 0
	getWaiters int       // Gets blocked in readyCond.Wait
	// wakesPending counts waiters signalled but not yet running: a ready
	// key they will take needs no further wake-up.
	wakesPending int

	entries  map[T]entry
	ready    readyQueue[T]
	waiting  []waitItem[T]
	inFlight int

	clock      clock.WithTicker
	epoch      time.Time
	limiter    TypedRateLimiter[T]
	maxRetries int
	log        logr.Logger
	metrics    *queueMetrics[T] // nil: no metrics

	shuttingDown bool
	draining     bool

	timerRunning  bool
	timerDeadline int64 // the timer goroutine's next wake-up
	wake          chan struct{}
	stop          chan struct{}
	stopOnce      sync.Once
	timerDone     sync.WaitGroup
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
		entries:    make(map[T]entry),
		ready:      newReadyQueue(opts.Lane, opts.StarvationLimit),
		clock:      clk,
		epoch:      clk.Now(),
		limiter:    limiter,
		maxRetries: opts.MaxRetries,
		log:        opts.Logger,
		wake:       make(chan struct{}, 1),
		stop:       make(chan struct{}),
	}
	if opts.Name != "" {
		q.log = q.log.WithValues("queue", opts.Name)
	}
	q.readyCond.L = &q.mu
	q.idleCond.L = &q.mu
	if opts.MetricsProvider != nil {
		q.metrics = newQueueMetrics[T](opts.MetricsProvider, opts.Name)
	}
	return q
}

// now is the queue clock: nanoseconds since New.
func (q *Queue[T]) now() int64 { return int64(q.clock.Since(q.epoch)) }

// Add makes key ready at PriorityNormal.
func (q *Queue[T]) Add(key T) {
	q.mu.Lock()
	if !q.shuttingDown {
		q.addReadyLocked(key, PriorityNormal)
	}
	q.mu.Unlock()
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
		q.mu.Lock()
		for _, key := range keys {
			if q.shuttingDown {
				break
			}
			q.addLocked(key, prio, o.After)
		}
		q.mu.Unlock()
		return
	}
	for _, key := range keys {
		if q.maxRetries > 0 && q.limiter.NumRequeues(key) >= q.maxRetries {
			q.drop(key)
			continue
		}
		d := max(o.After, q.limiter.When(key)) // the limiter locks on its own
		q.mu.Lock()
		if !q.shuttingDown {
			q.addLocked(key, prio, d)
		}
		q.mu.Unlock()
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
	q.addWaitingLocked(key, prio, q.now()+int64(d))
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

// Len returns the number of ready keys: what Get can hand out now. Delayed
// keys and keys held for re-processing after Done are not counted, as in
// client-go.
func (q *Queue[T]) Len() int {
	q.mu.Lock()
	n := q.ready.count
	q.mu.Unlock()
	return n
}

// Get blocks until a key is ready and hands it out; the caller must call
// Done with it. It reports shutdown once the queue is shut down and no ready
// key is left.
func (q *Queue[T]) Get() (key T, shutdown bool) {
	key, _, shutdown = q.GetWithPriority()
	return key, shutdown
}

// GetWithPriority is Get that also returns the priority key was served at.
func (q *Queue[T]) GetWithPriority() (key T, priority int, shutdown bool) {
	q.mu.Lock()
	for q.ready.count == 0 && !q.shuttingDown {
		q.getWaiters++
		q.readyCond.Wait()
		q.getWaiters--
		if q.wakesPending > 0 {
			q.wakesPending--
		}
	}
	if q.ready.count == 0 {
		q.mu.Unlock()
		return key, 0, true
	}
	n := q.ready.pop()
	node := &q.ready.nodes[n]
	node.state = nodeInFlight
	key, priority = node.key, int(node.prio)
	q.inFlight++
	if q.metrics != nil {
		now := q.now()
		q.metrics.handedOut(key, node.readyAt, now)
		if q.inFlight == 1 {
			q.timerNeededLocked(now + unfinishedWorkPeriod)
		}
	}
	q.mu.Unlock()
	return key, priority, false
}

// Done marks key as processed. If key was added again meanwhile, it becomes
// ready now (or stays delayed, if that add was delayed). Done of a key that
// is not in flight does nothing.
func (q *Queue[T]) Done(key T) {
	q.mu.Lock()
	e, ok := q.entries[key]
	if !ok {
		q.mu.Unlock()
		return
	}
	if e.waiting() {
		if !e.inFlight() {
			q.mu.Unlock()
			return
		}
		q.entries[key] = waitingEntry(e.index(), e.prio, false)
	} else {
		n := e.index()
		node := &q.ready.nodes[n]
		switch node.state {
		case nodeReady:
			q.mu.Unlock()
			return
		case nodeInFlight:
			delete(q.entries, key)
			q.ready.free(n)
		case nodeHeld:
			q.ready.link(n, node.prio, q.ready.handedOut)
			q.wakeLocked()
		}
	}
	q.inFlight--
	if q.metrics != nil {
		q.metrics.done(key, q.now())
	}
	if q.inFlight == 0 && q.draining {
		q.idleCond.Broadcast()
	}
	q.mu.Unlock()
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
	q.shuttingDown = true
	q.draining = false
	q.readyCond.Broadcast()
	q.idleCond.Broadcast()
	q.mu.Unlock()
	q.stopTimer()
}

// ShutDownWithDrain is ShutDown that also waits until no key is in flight.
// Workers must keep calling Done, or it waits forever; a ShutDown call from
// another goroutine ends the wait.
func (q *Queue[T]) ShutDownWithDrain() {
	q.mu.Lock()
	q.shuttingDown = true
	q.draining = true
	q.readyCond.Broadcast()
	for q.inFlight > 0 && q.draining {
		q.idleCond.Wait()
	}
	q.mu.Unlock()
	q.stopTimer()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool {
	q.mu.Lock()
	s := q.shuttingDown
	q.mu.Unlock()
	return s
}
