package handler

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// appendKeysFunc appends the keys of obj to dst and returns the result.
// Appending rather than returning a slice lets the common one-key mappings
// run without allocating.
type appendKeysFunc[K comparable] func(dst []K, obj metav1.Object) []K

// Handler maps informer events to keys. Build one with [ForObject],
// [ForControllerOf] or [Map], narrow it with [Handler.WithPredicates], and
// bind it to a queue with [Handler.EventHandler]. A Handler is an immutable
// value: it can be copied and shared between controllers.
//
// The zero Handler maps every event to no key.
type Handler[K comparable] struct {
	keys appendKeysFunc[K]
	// eventKeys, when set, replaces keys: it sees the whole event.
	eventKeys func(e Event) []K
	// objectKey, set by ForObject, maps an object to its one key. The
	// handler calls it directly: a key that never enters a slice needs no
	// allocation of its own.
	objectKey func(obj metav1.Object) K
	predicate Predicate
}

// WithPredicates returns a copy of h that only enqueues events every
// predicate allows, in addition to the predicates h already has.
func (h Handler[K]) WithPredicates(predicates ...Predicate) Handler[K] {
	all := make([]Predicate, 0, len(predicates)+1)
	if h.predicate != nil {
		all = append(all, h.predicate)
	}
	all = append(all, predicates...)
	switch len(all) {
	case 0:
		h.predicate = nil
	case 1:
		h.predicate = all[0]
	default:
		h.predicate = And(all...)
	}
	return h
}

// EventHandler returns the informer event handler that adds h's keys to q.
// Register it on an informer with AddEventHandler; the controller package's
// Watch does this for you.
func (h Handler[K]) EventHandler(q Queue[K]) cache.ResourceEventHandler {
	return &eventHandler[K]{h: h, q: q}
}

// eventHandler is a Handler bound to a queue.
type eventHandler[K comparable] struct {
	h Handler[K]
	q Queue[K]
}

func (e *eventHandler[K]) OnAdd(obj any, isInInitialList bool) {
	o, ok := objectMeta(obj)
	if !ok {
		return
	}
	e.handle(Event{Type: Create, Object: o, InInitialList: isInInitialList})
}

func (e *eventHandler[K]) OnUpdate(oldObj, newObj any) {
	oldMeta, ok := objectMeta(oldObj)
	if !ok {
		return
	}
	newMeta, ok := objectMeta(newObj)
	if !ok {
		return
	}
	e.handle(Event{Type: Update, Object: newMeta, OldObject: oldMeta})
}

func (e *eventHandler[K]) OnDelete(obj any) {
	tombstone, unknown := obj.(cache.DeletedFinalStateUnknown)
	if unknown {
		obj = tombstone.Obj
	}
	o, ok := objectMeta(obj)
	if !ok {
		return
	}
	e.handle(Event{Type: Delete, Object: o, FinalStateUnknown: unknown})
}

func (e *eventHandler[K]) handle(ev Event) {
	if (e.h.keys == nil && e.h.eventKeys == nil) || (e.h.predicate != nil && !e.h.predicate.Allow(ev)) {
		return
	}
	opts := workqueue.AddOpts{Priority: workqueue.PriorityNormal}
	if ev.InInitialList || ev.IsResync() {
		opts.Priority = workqueue.PriorityLow
	}
	if e.h.objectKey != nil {
		e.q.AddWithOpts(opts, e.h.objectKey(ev.Object))
		return
	}
	var keys []K
	switch {
	case e.h.eventKeys != nil:
		keys = appendNew(nil, e.h.eventKeys(ev))
	default:
		keys = e.h.keys(nil, ev.Object)
		if ev.Type == Update {
			keys = appendNew(keys, e.h.keys(nil, ev.OldObject))
		}
	}
	if len(keys) > 0 {
		e.q.AddWithOpts(opts, keys...)
	}
}

// appendNew appends the keys of more that dst lacks. Events map to a handful
// of keys, so a linear scan beats a set.
func appendNew[K comparable](dst, more []K) []K {
	for _, k := range more {
		found := false
		for _, d := range dst {
			if d == k {
				found = true
				break
			}
		}
		if !found {
			dst = append(dst, k)
		}
	}
	return dst
}

// objectMeta returns obj's metadata, reporting objects without any.
func objectMeta(obj any) (metav1.Object, bool) {
	if o, ok := obj.(metav1.Object); ok {
		return o, true
	}
	o, err := meta.Accessor(obj)
	if err != nil {
		utilruntime.HandleError(fmt.Errorf("handler: dropping event for %T: %w", obj, err))
		return nil, false
	}
	return o, true
}
