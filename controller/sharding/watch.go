package sharding

import (
	"net/http"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// shardWatch passes on the events of a watch whose objects are in its
// range, and ends, with a "resource version expired" error event, when the
// ring's target changes: the reflector then lists the new range.
type shardWatch struct {
	inner   watch.Interface
	target  Ranges
	changed <-chan struct{}
	out     chan watch.Event
	stop    chan struct{}
	once    sync.Once
}

func newShardWatch(inner watch.Interface, target Ranges, changed <-chan struct{}) *shardWatch {
	w := &shardWatch{inner: inner, target: target, changed: changed,
		out: make(chan watch.Event), stop: make(chan struct{})}
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
	defer w.inner.Stop()
	in := w.inner.ResultChan()
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-w.stop:
			return
		case <-w.changed:
			w.send(expired())
			return
		case ev, ok = <-in:
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

// send delivers ev unless the watch is stopped first.
func (w *shardWatch) send(ev watch.Event) bool {
	select {
	case w.out <- ev:
		return true
	case <-w.stop:
		return false
	}
}
