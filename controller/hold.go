package controller

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// hold keeps one key in flight, after its reconcile returned, until the
// informers have delivered every write the reconcile recorded, the bound
// passes, or the controller stops. Its done function, which calls
// queue.Done for the key, runs exactly once: whoever sets released runs it.
type hold struct {
	done func(timedOut bool)

	mu        sync.Mutex
	remaining int // waits not yet observed
	released  bool
	waits     []*wait
	timer     clock.Timer
}

// observed is called once for each of the hold's waits when its informer
// catches up; the last one releases the hold.
func (h *hold) observed() {
	h.mu.Lock()
	h.remaining--
	last := h.remaining == 0 && !h.released
	h.released = h.released || last
	h.mu.Unlock()
	if last {
		h.finish(false)
	}
}

// expire releases the hold unless it is released already.
func (h *hold) expire(timedOut bool) {
	h.mu.Lock()
	first := !h.released
	h.released = true
	h.mu.Unlock()
	if first {
		h.finish(timedOut)
	}
}

// finish stops the timer, forgets the waits still open (so that the
// trackers keep nothing for a released key) and hands the key back.
func (h *hold) finish(timedOut bool) {
	h.mu.Lock()
	timer := h.timer
	h.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	for _, w := range h.waits {
		w.progress.resolve(w)
	}
	h.done(timedOut)
}

// holds is a controller's held keys, so that shutdown can release them.
type holds struct {
	mu     sync.Mutex
	closed bool
	active map[*hold]struct{}
}

// add registers h, unless the controller is stopping.
func (s *holds) add(h *hold) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	if s.active == nil {
		s.active = make(map[*hold]struct{})
	}
	s.active[h] = struct{}{}
	return true
}

func (s *holds) remove(h *hold) {
	s.mu.Lock()
	delete(s.active, h)
	s.mu.Unlock()
}

// releaseAll releases every held key and refuses new holds: the controller
// is stopping, and a drain of its queue must not wait for caches.
func (s *holds) releaseAll() {
	s.mu.Lock()
	s.closed = true
	held := make([]*hold, 0, len(s.active))
	for h := range s.active {
		held = append(held, h)
	}
	s.mu.Unlock()
	for _, h := range held {
		h.expire(false)
	}
}

// doneWhenObserved hands key back to the queue (queue.Done) once the
// informers have delivered the writes its reconcile recorded in state, or
// after Options.CacheHoldTimeout. It reports whether it took the key over;
// if not, nothing was recorded (or the controller is stopping) and the
// caller calls Done itself. The worker never waits: the informers' handlers
// or the timer release the key.
func (c *Controller[K]) doneWhenObserved(key K, state *reconcileState) bool {
	waits := state.closeWrites()
	if len(waits) == 0 {
		return false
	}
	start := c.clock.Now()
	h := &hold{remaining: len(waits), waits: waits}
	h.done = func(timedOut bool) {
		c.holds.remove(h)
		c.metrics.heldKeys.Dec()
		c.metrics.holdTime.Observe(c.clock.Since(start).Seconds())
		if timedOut {
			c.metrics.holdTimeouts.Inc()
		}
		c.queue.Done(key)
	}
	c.metrics.heldKeys.Inc()
	if !c.holds.add(h) {
		c.metrics.heldKeys.Dec()
		return false
	}
	for _, w := range waits {
		w.hold = h
		w.progress.add(w)
	}
	// The timer starts once every wait is registered, so that expiring
	// forgets them all. A shutdown may have released the hold while waits
	// were still being registered: forget those here.
	h.mu.Lock()
	released := h.released
	if !released {
		h.timer = c.delayClock.AfterFunc(c.cacheHoldTimeout, func() { h.expire(true) })
	}
	h.mu.Unlock()
	if released {
		for _, w := range waits {
			w.progress.resolve(w)
		}
		return true
	}
	for _, w := range waits {
		w.progress.checkCache(w)
	}
	return true
}

// holdTimeBuckets span a fast informer's milliseconds to the default bound.
var holdTimeBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// DefaultCacheHoldTimeout is the default of Options.CacheHoldTimeout.
const DefaultCacheHoldTimeout = 5 * time.Second
