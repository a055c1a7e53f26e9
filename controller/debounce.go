package controller

import (
	"sync"
	"time"

	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// debouncer sits between the event handlers and the queue (see
// Options.Debounce). A key's first event starts its burst; the key goes to
// the queue once it has had no event for quiet, or maxWait after the
// burst began, whichever comes first, at the highest priority its events
// asked for. Adds that name a delay or a rate limit are not events of a
// burst and pass straight through.
//
// pending holds each key of a burst in progress, with its one timer; a
// key is in pending from its first event until its timer finds it due and
// adds it. mu guards pending and stopped; after stop nothing is added.
type debouncer[K comparable] struct {
	queue          handler.Queue[K]
	clock          clock.WithDelayedExecution
	quiet, maxWait time.Duration

	mu      sync.Mutex
	pending map[K]*burst
	stopped bool
}

// burst is one key's events since it was last added.
type burst struct {
	first, last time.Time
	priority    int
	timer       clock.Timer
}

func newDebouncer[K comparable](q handler.Queue[K], clk clock.WithDelayedExecution, quiet, maxWait time.Duration) *debouncer[K] {
	return &debouncer[K]{queue: q, clock: clk, quiet: quiet, maxWait: maxWait, pending: make(map[K]*burst)}
}

// AddWithOpts records events for keys: the handlers call it.
func (d *debouncer[K]) AddWithOpts(o workqueue.AddOpts, keys ...K) {
	if o.After > 0 || o.RateLimited {
		d.queue.AddWithOpts(o, keys...)
		return
	}
	now := d.clock.Now()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stopped {
		return
	}
	for _, key := range keys {
		if b, ok := d.pending[key]; ok {
			b.last, b.priority = now, max(b.priority, o.Priority)
			continue
		}
		b := &burst{first: now, last: now, priority: o.Priority}
		d.pending[key] = b
		// The timer is not moved on each event: when it fires it looks at
		// the last event, and sleeps again if the key is not due yet, so a
		// stream of events costs one timer per quiet period.
		b.timer = d.clock.AfterFunc(d.quiet, func() { d.fire(key) })
	}
}

// fire adds key if its burst is over, or waits until it will be.
func (d *debouncer[K]) fire(key K) {
	d.mu.Lock()
	b, ok := d.pending[key]
	if !ok || d.stopped {
		d.mu.Unlock()
		return
	}
	now := d.clock.Now()
	due := b.last.Add(d.quiet)
	if maxDue := b.first.Add(d.maxWait); maxDue.Before(due) {
		due = maxDue
	}
	if now.Before(due) {
		b.timer = d.clock.AfterFunc(due.Sub(now), func() { d.fire(key) })
		d.mu.Unlock()
		return
	}
	delete(d.pending, key)
	d.mu.Unlock()
	d.queue.AddWithOpts(workqueue.AddOpts{Priority: b.priority}, key)
}

// stop drops the bursts in progress: Run is ending, and the queue with it.
func (d *debouncer[K]) stop() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stopped = true
	for key, b := range d.pending {
		b.timer.Stop()
		delete(d.pending, key)
	}
}
