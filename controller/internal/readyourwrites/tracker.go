package readyourwrites

import (
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
)

// Tracker is one controller's read-your-writes, in three operations:
//
//   - Track an informer: wrap the controller's event handler on it, so that
//     the tracker sees what the informer delivers;
//   - Record a write: add it to the running reconcile's Writes;
//   - Hold a key until its writes are seen: when the reconcile has returned,
//     keep its key from the queue until each recorded write was delivered.
//
// Stop ends holding when the controller stops.
//
// Invariants:
//
//   - A tracked informer's waiting map holds exactly the recorded writes of
//     unreleased holds that it has not delivered yet, and its pending count
//     is their number. Nothing else is kept per object: memory is bounded by
//     the writes held keys wait for, and an event of an informer nobody
//     waits on costs one atomic load.
//   - A write counts as seen once the informer has delivered the object at
//     the written resourceVersion or newer, or its deletion (Progress is
//     what the informer delivered to the controller's own handler, checked
//     against its store when the hold starts, since an informer updates its
//     store before it notifies handlers.) Versions apimachinery cannot
//     compare count as seen: a key is never held on a write it cannot judge.
//   - Each recorded write leaves its informer's waiting map exactly once: on
//     delivery, when the hold starts and the store already has it, or when
//     the hold is released.
//   - A hold is released exactly once, by the last delivery, by Timeout or
//     by Stop; whoever sets released runs done (queue.Done of the key).
//   - Writes recorded after Hold closed the reconcile's Writes are dropped:
//     the key may be with another worker already.
//   - After Stop no key is held: Stop releases the held ones, Hold refuses
//     new ones, so that a drain of the queue does not wait for caches.
//
// The exported fields are set once, before the first Track.
type Tracker struct {
	// Timeout bounds a hold (Options.CacheHoldTimeout).
	Timeout time.Duration
	// Clock measures holds; Timers runs the bound.
	Clock  clock.PassiveClock
	Timers clock.WithDelayedExecution
	// Held counts the keys held now, HoldTime observes each hold's length,
	// Timeouts counts holds released by Timeout.
	Held     prometheus.Gauge
	HoldTime prometheus.Observer
	Timeouts prometheus.Counter

	mu        sync.Mutex
	informers map[cache.SharedInformer]*trackedInformer
	held      map[*Writes]struct{}
	stopped   bool
}

// Track returns the handler to register on informer in place of next: it
// tells the tracker of each delivery, then passes it on to next.
func (t *Tracker) Track(informer cache.SharedInformer, next cache.ResourceEventHandler) cache.ResourceEventHandler {
	t.mu.Lock()
	ti := t.informers[informer]
	if ti == nil {
		if t.informers == nil {
			t.informers = make(map[cache.SharedInformer]*trackedInformer)
		}
		ti = &trackedInformer{informer: informer, waiting: make(map[cache.ObjectName][]*write)}
		t.informers[informer] = ti
	}
	t.mu.Unlock()
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, isInInitialList bool) {
			ti.delivered(obj, false)
			next.OnAdd(obj, isInInitialList)
		},
		UpdateFunc: func(oldObj, newObj any) {
			ti.delivered(newObj, false)
			next.OnUpdate(oldObj, newObj)
		},
		DeleteFunc: func(obj any) {
			ti.delivered(obj, true)
			next.OnDelete(obj)
		},
	}
}

// Record adds to w, the Writes of a running reconcile, a write of obj whose
// kind informer serves: obj as the API server returned it from a create,
// update or patch (it must have a resourceVersion), or, if deleted, as the
// reconcile read it before deleting it (its name and, if set, UID count).
// It reports false if informer is not tracked: a write the tracker cannot
// see delivered is not recorded.
func (t *Tracker) Record(w *Writes, informer cache.SharedInformer, obj metav1.Object, deleted bool) bool {
	from := t.trackedOf(informer)
	if from == nil {
		return false
	}
	wr := &write{name: cache.MetaObjectToName(obj), from: from, hold: w}
	if deleted {
		wr.deleted, wr.uid = true, obj.GetUID()
	} else {
		wr.resourceVersion = obj.GetResourceVersion()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.writes = append(w.writes, wr)
	}
	return true
}

// Hold holds the key of w, whose Close reported recorded writes, until
// they are seen: it calls done once the informers have delivered each of
// them, Timeout has passed, or Stop is called, and reports true. After
// Stop it reports false, and the caller hands the key back itself. Hold
// never waits: deliveries, the timer or Stop call done, on their
// goroutines, or Hold itself if the caches already hold every write.
func (t *Tracker) Hold(w *Writes, done func()) bool {
	w.mu.Lock()
	w.closed = true
	writes := w.writes
	w.remaining, w.start, w.done, w.tracker = len(writes), t.Clock.Now(), done, t
	w.mu.Unlock()

	t.Held.Inc() // before the hold is visible, so that its release comes after
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		t.Held.Dec()
		return false
	}
	if t.held == nil {
		t.held = make(map[*Writes]struct{})
	}
	t.held[w] = struct{}{}
	t.mu.Unlock()

	for _, wr := range writes {
		wr.from.add(wr)
	}
	// The timer starts once every write is registered, so that a timeout
	// forgets them all. Stop may have released the hold while writes were
	// being registered: forget those here.
	w.mu.Lock()
	released := w.released
	if !released {
		// A goroutine of its own: a FakeClock runs this under the lock
		// that its Since and Stop take, which the release calls.
		w.timer = t.Timers.AfterFunc(t.Timeout, func() { go w.release(true) })
	}
	w.mu.Unlock()
	for _, wr := range writes {
		if released {
			wr.from.resolve(wr)
		} else {
			wr.from.checkCache(wr)
		}
	}
	return true
}

// Stop releases every held key and refuses new holds: the controller is
// stopping, and a drain of its queue must not wait for caches.
func (t *Tracker) Stop() {
	t.mu.Lock()
	t.stopped = true
	held := make([]*Writes, 0, len(t.held))
	for w := range t.held {
		held = append(held, w)
	}
	t.mu.Unlock()
	for _, w := range held {
		w.release(false)
	}
}

// trackedOf returns the tracked informer of informer, nil if it is not
// tracked. client-go's typed informers wrap the factory's informer anew on
// every Informer() call, so an informer that is not the value passed to
// Track matches the tracked one that has the same store.
func (t *Tracker) trackedOf(informer cache.SharedInformer) *trackedInformer {
	if informer == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if ti := t.informers[informer]; ti != nil {
		return ti
	}
	store := informer.GetStore()
	for _, ti := range t.informers {
		if ti.informer.GetStore() == store {
			return ti
		}
	}
	return nil
}
