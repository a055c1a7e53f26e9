package controllertest

import (
	"sync"

	"k8s.io/apimachinery/pkg/watch"
)

// copyingWatch relays a watch, giving each event its own copy of the
// object. Unlike watch.Filter it returns as soon as it is stopped, even
// when nobody reads the last event, so a stopped informer leaves no
// goroutine behind.
type copyingWatch struct {
	source watch.Interface
	result chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

func newCopyingWatch(source watch.Interface) *copyingWatch {
	w := &copyingWatch{source: source, result: make(chan watch.Event), stop: make(chan struct{})}
	go w.relay()
	return w
}

// ResultChan returns the copied events; it is closed when the source ends
// or the watch is stopped.
func (w *copyingWatch) ResultChan() <-chan watch.Event { return w.result }

// Stop stops the source and the relay. It may be called more than once.
func (w *copyingWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.source.Stop()
	})
}

func (w *copyingWatch) relay() {
	defer close(w.result)
	for {
		select {
		case <-w.stop:
			return
		case e, ok := <-w.source.ResultChan():
			if !ok {
				return
			}
			if e.Object != nil {
				e.Object = e.Object.DeepCopyObject()
			}
			select {
			case w.result <- e:
			case <-w.stop:
				return
			}
		}
	}
}
