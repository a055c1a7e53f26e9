package readyourwrites

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Writes is one reconcile's recorded writes and, once Hold has taken it,
// the hold of the reconcile's key. Its zero value is an open, empty log,
// so a reconcile that records nothing allocates nothing for it.
type Writes struct {
	mu     sync.Mutex
	closed bool
	writes []*write // fixed once closed

	// Set by Hold.
	tracker   *Tracker
	done      func()
	start     time.Time
	remaining int // writes not yet seen
	released  bool
	timer     clock.Timer
}

// Close ends recording, when the reconcile returns, and reports whether
// any write was recorded (then the caller holds the key with Hold).
func (w *Writes) Close() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.closed = true
	return len(w.writes) > 0
}

// seen is called once for each recorded write when its informer has
// delivered it; the last one releases the hold.
func (w *Writes) seen() {
	w.mu.Lock()
	w.remaining--
	last := w.remaining == 0 && !w.released
	w.released = w.released || last
	w.mu.Unlock()
	if last {
		w.finish(false)
	}
}

// release releases the hold unless it is released already.
func (w *Writes) release(timedOut bool) {
	w.mu.Lock()
	first := !w.released
	w.released = true
	w.mu.Unlock()
	if first {
		w.finish(timedOut)
	}
}

// finish stops the timer, forgets the writes still awaited (so that the
// informers keep nothing for a released key), counts the hold and hands
// the key back.
func (w *Writes) finish(timedOut bool) {
	w.mu.Lock()
	timer := w.timer
	w.mu.Unlock()
	if timer != nil {
		timer.Stop()
	}
	for _, wr := range w.writes {
		wr.from.resolve(wr)
	}
	t := w.tracker
	t.mu.Lock()
	delete(t.held, w)
	t.mu.Unlock()
	t.Held.Dec()
	t.HoldTime.Observe(t.Clock.Since(w.start).Seconds())
	if timedOut {
		t.Timeouts.Inc()
	}
	w.done()
}
