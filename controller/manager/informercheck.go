package manager

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"k8s.io/client-go/tools/cache"
)

// InformerWatcher is implemented by runnables that watch informers, as
// controller.Controller does. Run checks that each watched informer starts
// soon after the informer factories do, and fails at once, naming the
// informer, if one does not: a controller whose informer nobody starts
// would otherwise wait its whole cache sync timeout (two minutes by
// default) before it said so. The usual cause is a factory never passed
// to AddInformerFactory.
type InformerWatcher interface {
	WatchedInformers() []cache.SharedInformer
}

// ErrInformerNotStarted is wrapped by the error Run returns when a
// runnable watches an informer that nothing started.
var ErrInformerNotStarted = errors.New("informer not started")

// informerStartGrace is how long after Run starts the factories a watched
// informer may take to start: its factory's first Start launches it at
// once; one requested during a runnable's Run is started at the next
// lateInformerPeriod; one a runnable runs itself starts when it does.
const informerStartGrace = 2 * lateInformerPeriod

// informerStartPoll is how often the check looks again. Informers report
// their start (HasStarted) but offer nothing to wait on.
const informerStartPoll = 10 * time.Millisecond

// watchedInformer is one informer a runnable watches.
type watchedInformer struct {
	runnable string
	informer cache.SharedInformer
	started  func() bool
}

// watchedInformers lists the informers the runnables watch that can say
// whether they have started (client-go's can; a custom one may not).
func watchedInformers(runnables []*runnableEntry) []watchedInformer {
	var watched []watchedInformer
	for _, e := range runnables {
		w, ok := e.r.(InformerWatcher)
		if !ok {
			continue
		}
		for _, inf := range w.WatchedInformers() {
			if started := startedFunc(inf); started != nil {
				watched = append(watched, watchedInformer{runnable: e.name, informer: inf, started: started})
			}
		}
	}
	return watched
}

// checkInformersStarted waits, at most informerStartGrace, until every
// watched informer has started, and sends an error naming those that have
// not on r.unstarted. It returns early when the informers stop.
func (r *run) checkInformersStarted(watched []watchedInformer) {
	defer close(r.checkDone)
	deadline := time.NewTimer(informerStartGrace)
	defer deadline.Stop()
	poll := time.NewTicker(informerStartPoll)
	defer poll.Stop()
	for {
		watched = notStarted(watched)
		if len(watched) == 0 {
			return
		}
		select {
		case <-r.stopInformers:
			return
		case <-poll.C:
		case <-deadline.C:
			var errs []error
			for _, w := range notStarted(watched) {
				errs = append(errs, fmt.Errorf("manager: runnable %q watches %s, which no informer factory started within %s (is its factory added with AddInformerFactory?): %w",
					w.runnable, w.informer.HasSyncedChecker().Name(), informerStartGrace, ErrInformerNotStarted))
			}
			if len(errs) > 0 {
				r.unstarted <- errors.Join(errs...) // buffered: never blocks
			}
			return
		}
	}
}

func notStarted(watched []watchedInformer) []watchedInformer {
	var out []watchedInformer
	for _, w := range watched {
		if !w.started() {
			out = append(out, w)
		}
	}
	return out
}

// startedFunc returns inf's HasStarted, or nil if it has none. client-go's
// informer has one, but outside the SharedInformer interface, and the
// generated informers hand it out wrapped (cache.NewTypedSharedIndexInformer
// embeds it as a SharedIndexInformer), which hides the method: unwrap such
// embedding.
func startedFunc(inf cache.SharedInformer) func() bool {
	for range 4 { // wrappers of wrappers, within reason
		if s, ok := inf.(interface{ HasStarted() bool }); ok {
			return s.HasStarted
		}
		v := reflect.ValueOf(inf)
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil
		}
		var inner cache.SharedInformer
		for _, name := range []string{"SharedIndexInformer", "SharedInformer"} {
			if f, ok := v.Type().FieldByName(name); ok && f.Anonymous {
				if i, ok := v.FieldByIndex(f.Index).Interface().(cache.SharedInformer); ok && i != nil {
					inner = i
					break
				}
			}
		}
		if inner == nil {
			return nil
		}
		inf = inner
	}
	return nil
}
