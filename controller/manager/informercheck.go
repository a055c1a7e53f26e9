package manager

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"
)

// InformerWatcher is implemented by runnables that watch informers, as
// controller.Controller does. Run checks that something starts each
// watched informer, and fails soon, naming the informer, if nothing does:
// a controller whose informer nobody starts would otherwise wait its whole
// cache sync timeout (two minutes by default) before it said so. The usual
// causes are a factory never passed to AddInformerFactory, and an informer
// requested from a factory after Run started it.
type InformerWatcher interface {
	WatchedInformers() []cache.SharedInformer
}

// ErrInformerNotStarted is wrapped by the error Run returns when a
// runnable watches an informer that nothing started.
var ErrInformerNotStarted = errors.New("informer not started")

// informerStartGrace is how long, after the Manager's factories have
// synced, a watched informer that none of them started may take to sync
// (one a runnable runs itself) before Run fails.
const informerStartGrace = 5 * time.Second

// watchedInformer is one informer a runnable watches.
type watchedInformer struct {
	runnable string
	informer cache.SharedInformer
	synced   cache.DoneChecker
}

// watchedInformers lists the informers the runnables watch.
func watchedInformers(runnables []*runnableEntry) []watchedInformer {
	var watched []watchedInformer
	for _, e := range runnables {
		w, ok := e.r.(InformerWatcher)
		if !ok {
			continue
		}
		for _, inf := range w.WatchedInformers() {
			if synced := inf.HasSyncedChecker(); synced != nil {
				watched = append(watched, watchedInformer{runnable: e.name, informer: inf, synced: synced})
			}
		}
	}
	return watched
}

// checkInformersStarted sends an error on r.unstarted naming each watched
// informer that nothing started. client-go's informers say whether they
// have synced, on a channel, but not (through their interfaces) whether
// they have started. So the check waits for the factories first (they
// sync only what they started, so a slow LIST is never taken for an
// informer nobody started), then informerStartGrace for the watched
// informers to sync. One that has not synced by then was not started,
// unless it says otherwise (client-go's own informer type has HasStarted;
// the typed wrappers of generated informers hide it). The check returns
// early when the informers stop.
func (r *run) checkInformersStarted(factories []*factoryEntry, watched []watchedInformer) {
	defer close(r.checkDone)
	if len(watched) == 0 {
		return
	}
	for _, f := range factories {
		select {
		case <-f.syncDone:
		case <-r.stopInformers:
			return
		}
	}
	grace := time.NewTimer(informerStartGrace)
	defer grace.Stop()
wait:
	for _, w := range watched {
		select {
		case <-w.synced.Done():
		case <-grace.C:
			break wait
		case <-r.stopInformers:
			return
		}
	}
	var errs []error
	for _, w := range watched {
		if !started(w) {
			errs = append(errs, fmt.Errorf("manager: runnable %q watches %s, which nothing started (is its factory added with AddInformerFactory, and was the informer requested before Run?): %w",
				w.runnable, w.synced.Name(), ErrInformerNotStarted))
		}
	}
	if len(errs) > 0 {
		r.unstarted <- errors.Join(errs...) // buffered: never blocks
	}
}

// started reports whether w's informer has started, as far as anyone can
// tell: it has synced, or it says it has started.
func started(w watchedInformer) bool {
	if cache.IsDone(w.synced) {
		return true
	}
	s, ok := w.informer.(interface{ HasStarted() bool })
	return ok && s.HasStarted()
}
