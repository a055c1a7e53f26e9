package controllertest

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/watch"
)

// LateWatch relays source, delivering each event delay after source sent
// it, in order and with its own copy of the object: the watch of an
// informer that lags, as under a loaded API server. Tests of code that
// must not act on a stale cache wrap an informer's watch with it. Stop
// stops source and returns at once, even when nobody reads.
func LateWatch(source watch.Interface, delay time.Duration) watch.Interface {
	w := &lateWatch{source: source, result: make(chan watch.Event), stop: make(chan struct{})}
	type stamped struct {
		event watch.Event
		due   time.Time
	}
	pending := make(chan stamped, 1000)
	go func() {
		defer close(pending)
		for e := range source.ResultChan() {
			if e.Object != nil {
				e.Object = e.Object.DeepCopyObject()
			}
			select {
			case pending <- stamped{event: e, due: time.Now().Add(delay)}:
			case <-w.stop:
				return
			}
		}
	}()
	go func() {
		defer close(w.result)
		for p := range pending {
			timer := time.NewTimer(time.Until(p.due))
			select {
			case <-timer.C:
			case <-w.stop:
				timer.Stop()
				return
			}
			select {
			case w.result <- p.event:
			case <-w.stop:
				return
			}
		}
	}()
	return w
}

type lateWatch struct {
	source watch.Interface
	result chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

func (w *lateWatch) ResultChan() <-chan watch.Event { return w.result }

func (w *lateWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.source.Stop()
	})
}
