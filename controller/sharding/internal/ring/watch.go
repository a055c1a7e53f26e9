package ring

import (
	"context"
	"net/http"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// shardWatch passes on the events of a watch whose objects are in its
// range. When the ring's target changes, it moves to the new target
// without ending (see moveTo), so that the informer's cache follows the
// ring at once; where it cannot, it ends with a "resource version
// expired" error event, and the reflector lists the new range after its
// backoff.
//
// Invariant: lastRV is the resourceVersion of the last event passed on,
// or of the list the watch started from: once the informer's store has
// reached it, the store holds everything the watch passed on.
type shardWatch struct {
	ctx     context.Context
	lw      *shardedListWatch
	opts    metav1.ListOptions // the reflector's, for the watches that follow a move
	inner   watch.Interface
	target  Ranges
	changed <-chan struct{}
	lastRV  string
	out     chan watch.Event
	stop    chan struct{}
	once    sync.Once
}

func newShardWatch(ctx context.Context, lw *shardedListWatch, inner watch.Interface, target Ranges, changed <-chan struct{}, opts metav1.ListOptions) *shardWatch {
	w := &shardWatch{ctx: ctx, lw: lw, opts: opts, inner: inner, target: target, changed: changed,
		lastRV: opts.ResourceVersion, out: make(chan watch.Event), stop: make(chan struct{})}
	go w.run()
	return w
}

func (w *shardWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *shardWatch) Stop() {
	w.once.Do(func() { close(w.stop) })
}

// expired is the event that makes a reflector list again.
func expired() watch.Event {
	return watch.Event{Type: watch.Error, Object: &metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusGone,
		Reason:  metav1.StatusReasonExpired,
		Message: "sharding: this replica's shard range changed; list again",
	}}
}

func (w *shardWatch) run() {
	defer close(w.out)
	defer func() { w.inner.Stop() }() // the inner watch changes on a move
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-w.stop:
			return
		case <-w.changed:
			w.inner.Stop()
			w.inner = watch.NewEmptyWatch()
			if !w.moveTo() {
				return
			}
			continue
		case ev, ok = <-w.inner.ResultChan():
			if !ok {
				return
			}
		}
		if w.keep(ev) && !w.send(ev) {
			return
		}
	}
}

// keep reports whether ev is for an object in range, or not about one.
func (w *shardWatch) keep(ev watch.Event) bool {
	switch ev.Type {
	case watch.Added, watch.Modified, watch.Deleted:
		h, err := ObjectHash(ev.Object)
		return err == nil && w.target.Contains(h)
	default:
		return true
	}
}

// send delivers ev unless the watch is stopped first, and records its
// resourceVersion.
func (w *shardWatch) send(ev watch.Event) bool {
	select {
	case w.out <- ev:
	case <-w.stop:
		return false
	}
	if ev.Type != watch.Error {
		if m, err := meta.Accessor(ev.Object); err == nil {
			w.lastRV = m.GetResourceVersion()
		}
	}
	return true
}
