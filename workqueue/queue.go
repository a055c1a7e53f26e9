package workqueue

import (
	"sync"
	"sync/atomic"
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

	// posted holds adds made while the lock was taken; parking counts Gets
	// about to wait in readyCond (see posted.go). Last: the ring is large.
	parking     atomic.Int32
	addsWaiting atomic.Int32 // Adds blocked in lock
	// producerContention counts down the contended Adds that post at once
	// since Adds were last seen waiting for each other (see
	// producersContend).
	producerContention atomic.Int32
	addMode            atomic.Int32 // how Add takes the lock (see addmode.go)
	deepBacklog        atomic.Bool  // Adds wait rather than post (see addmode.go)
	// readyCount is the ready count, kept by ready once Len has been
	// called; -1 until then (see len.go).
	readyCount  atomic.Int64
	addsToProbe int // Adds until the next probe; under mu
	posted      postedRing[T]
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
	q.readyCount.Store(-1) // Len has not been called (see len.go)
	q.idleCond.L = &q.mu
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
	// The clock is read before locking: the critical section is what other
	// callers wait for.
	now, haveNow := q.metricsNow()
	q.mu.Lock() // lock and unlock by hand: see lockedPath in posted.go
	if q.mayHavePosted() && q.posted.pendingLocked() {
		q.applyPostedLocked()
	}
	key, priority, shutdown, wait := q.getLocked(now, haveNow)
	q.mu.Unlock()
	if q.mayHavePosted() && q.posted.pending() {
		q.applyPostedAfterUnlock()
	}
	if wait >= 0 {
		q.metrics.observeHandOut(wait)
	}
	return key, priority, shutdown
}

// metricsNow reads the queue clock if the queue has metrics, the only
// reason Get and Done need it.
func (q *Queue[T]) metricsNow() (now int64, ok bool) {
	if q.metrics == nil {
		return 0, false
	}
	return q.now(), true
}

// getLocked hands out the next ready key, waiting for one if there is none.
// now is the queue time if the caller has read it (haveNow): a hand-out
// that did not wait is stamped with it. wait is how long the key was
// ready, for observeHandOut once unlocked; -1 if there are no metrics.
func (q *Queue[T]) getLocked(now int64, haveNow bool) (key T, priority int, shutdown bool, wait int64) {
	if q.ready.count == 0 {
		if !q.waitReadyLocked() {
			return key, 0, true, -1
		}
		haveNow = false // time passed while waiting
	}
	n := q.ready.pop()
	node := &q.ready.nodes[n]
	node.state = nodeInFlight
	key, priority = node.key, int(node.prio)
	q.inFlight++
	if q.metrics == nil {
		return key, priority, false, -1
	}
	if !haveNow || now < node.readyAt {
		// The key became ready after the caller read the clock, while it
		// waited for the lock: read it again rather than report a
		// negative wait.
		now = q.now()
	}
	q.metrics.handedOut(key, now)
	if q.inFlight == 1 {
		q.timerNeededLocked(now + unfinishedWorkPeriod)
	}
	return key, priority, false, now - node.readyAt
}

// waitReadyLocked waits until a key is ready, or reports false once the
// queue is shut down with none ready. Out of Get's line: Get's common path
// does not wait.
func (q *Queue[T]) waitReadyLocked() bool {
	for q.ready.count == 0 && !q.shuttingDown {
		q.parkLocked(func() bool { return q.ready.count == 0 }, func() {
			q.getWaiters++
			q.readyCond.Wait()
			q.getWaiters--
			if q.wakesPending > 0 {
				q.wakesPending--
			}
		})
	}
	return q.ready.count > 0
}

// parkLocked runs wait, a Cond.Wait with its bookkeeping, unless needed
// reports false once the posted keys are applied. Cond.Wait releases the
// lock without unlock's check for posted keys, so the caller counts in
// parking from before it applies them until it holds the lock again: a
// poster that sees it takes the lock itself (see posted.go). Every wait on
// one of the queue's Conds goes through here.
func (q *Queue[T]) parkLocked(needed func() bool, wait func()) {
	q.parking.Add(1)
	q.applyPostedLocked()
	if !needed() {
		q.parking.Add(-1)
		return
	}
	wait()
	q.parking.Add(-1)
	q.applyPostedLocked()
}

// Done marks key as processed. If key was added again meanwhile, it becomes
// ready now (or stays delayed, if that add was delayed). Done of a key that
// is not in flight does nothing.
func (q *Queue[T]) Done(key T) {
	if mode := q.addMode.Load(); mode >= addTry {
		q.doneTrying(key, mode) // see posted.go
		return
	}
	// Posting is only for once Adds have been seen to contend: before
	// that, holders do not look at the ring (mayHavePosted).
	q.DoneTimed(key)
}

// DoneTimed is Done that also returns how long key was in flight, from the
// Get that handed it out to this call, on the queue's clock. A queue with
// metrics times every key for workqueue_work_duration_seconds; a caller
// that needs the same duration takes it here rather than reading the clock
// twice more per key. timed is false when the queue has no metrics or key
// was not in flight.
func (q *Queue[T]) DoneTimed(key T) (elapsed time.Duration, timed bool) {
	// Lock and unlock by hand (see lockedPath in posted.go), without
	// applying posted adds first: a posted Add of key and this Done leave
	// the same state in either order (key ready once, at the tail), and
	// other keys are untouched; the unlock below applies them.
	now, haveNow := q.metricsNow()
	q.mu.Lock()
	elapsed, timed = q.doneAtLocked(key, now, haveNow)
	q.mu.Unlock()
	if q.mayHavePosted() && q.posted.pending() {
		q.applyPostedAfterUnlock()
	}
	if timed {
		q.metrics.observeWork(elapsed)
	}
	return elapsed, timed
}

// doneLocked is Done with the lock held, for a Done applied on its
// poster's behalf.
func (q *Queue[T]) doneLocked(key T) {
	if elapsed, timed := q.doneAtLocked(key, 0, false); timed {
		q.metrics.observeWork(elapsed)
	}
}

// doneAtLocked marks key as processed, at queue time now if the caller has
// read it (haveNow). It returns how long key was in flight, which the
// caller observes in workDuration, once unlocked if it can.
func (q *Queue[T]) doneAtLocked(key T, now int64, haveNow bool) (elapsed time.Duration, timed bool) {
	e, ok := q.entries[key]
	if !ok {
		return
	}
	if e.waiting() {
		if !e.inFlight() {
			return
		}
		q.entries[key] = waitingEntry(e.index(), e.prio, false)
	} else {
		n := e.index()
		node := &q.ready.nodes[n]
		switch node.state {
		case nodeReady:
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
		if !haveNow {
			now = q.now()
		}
		elapsed, timed = q.metrics.done(key, now)
	}
	if q.inFlight == 0 && q.draining {
		q.idleCond.Broadcast()
	}
	return elapsed, timed
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
	q.lock()
	q.shuttingDown = true
	q.draining = false
	q.readyCond.Broadcast()
	q.idleCond.Broadcast()
	q.unlock()
	q.stopTimer()
}

// ShutDownWithDrain is ShutDown that also waits until no key is in flight.
// Workers must keep calling Done, or it waits forever; a ShutDown call from
// another goroutine ends the wait.
func (q *Queue[T]) ShutDownWithDrain() {
	q.lock()
	q.shuttingDown = true
	q.draining = true
	q.readyCond.Broadcast()
	for q.inFlight > 0 && q.draining {
		// A Done posted meanwhile must not be left in the ring while this
		// waits for it.
		q.parkLocked(func() bool { return q.inFlight > 0 && q.draining }, q.idleCond.Wait)
	}
	q.unlock()
	q.stopTimer()
}

// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
func (q *Queue[T]) ShuttingDown() bool {
	q.lock()
	s := q.shuttingDown
	q.unlock()
	return s
}
