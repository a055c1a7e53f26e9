package handler

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Handler maps informer events to keys. Build one with [ForObject],
// [ForControllerOf], [Map] or [MapEvent], narrow it with
// [Handler.WithPredicates], and bind it to a queue with
// [Handler.EventHandler]. A Handler is an immutable value: it can be copied
// and shared between controllers.
//
// The zero Handler maps every event to no key.
type Handler[K comparable] struct {
	// keys maps an event to its keys, possibly with repeats: the event
	// handler adds each once. Nil maps every event to none.
	keys      func(e Event) []K
	predicate Predicate
	// priority gives a live event's priority; nil means PriorityNormal.
	priority func(e Event) int
}

// WithPriority returns a copy of h that adds the keys of a live event at
// the priority priority returns for it, instead of workqueue.PriorityNormal.
// Keys from the informer's initial list and from resyncs stay at
// workqueue.PriorityLow. A key already queued is raised, never lowered, so
// an event of lower priority never delays one that is waiting.
func (h Handler[K]) WithPriority(priority func(e Event) int) Handler[K] {
	h.priority = priority
	return h
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
	if e.h.keys == nil || (e.h.predicate != nil && !e.h.predicate.Allow(ev)) {
		return
	}
	keys := withoutRepeats(e.h.keys(ev))
	if len(keys) == 0 {
		return
	}
	opts := workqueue.AddOpts{Priority: workqueue.PriorityNormal}
	switch {
	case ev.InInitialList || ev.IsResync():
		opts.Priority = workqueue.PriorityLow
	case e.h.priority != nil:
		opts.Priority = e.h.priority(ev)
	}
	e.q.AddWithOpts(opts, keys...)
}

// withoutRepeats returns keys with each key once, where it first appears.
// A set keeps it linear: one event may map to thousands of keys (every Pod
// a Node runs, say). Keys may belong to the mapping function, which may
// hand the same slice out again, so they are copied, not compacted.
func withoutRepeats[K comparable](keys []K) []K {
	if len(keys) < 2 {
		return keys
	}
	seen := make(map[K]struct{}, len(keys))
	unique := make([]K, 0, len(keys))
	for _, k := range keys {
		if _, ok := seen[k]; !ok {
			seen[k] = struct{}{}
			unique = append(unique, k)
		}
	}
	return unique
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
