package handler

import (
	"maps"

	"k8s.io/apimachinery/pkg/labels"
)

// Predicate decides whether an event should enqueue keys.
//
// One method judges every kind of event; a predicate that cares about the
// kind switches on Event.Type. Predicates must be safe for concurrent use and
// must not modify the objects they see: those belong to the informer's cache.
type Predicate interface {
	// Allow reports whether e should enqueue keys.
	Allow(e Event) bool
}

// PredicateFunc adapts a function to a Predicate.
type PredicateFunc func(e Event) bool

// Allow calls f(e).
func (f PredicateFunc) Allow(e Event) bool { return f(e) }

// And allows an event when every predicate allows it (or there are none),
// asking them in order and stopping at the first refusal.
func And(predicates ...Predicate) Predicate {
	return PredicateFunc(func(e Event) bool {
		for _, p := range predicates {
			if !p.Allow(e) {
				return false
			}
		}
		return true
	})
}

// Or allows an event when any predicate allows it, asking them in order and
// stopping at the first that does. Or() allows nothing.
func Or(predicates ...Predicate) Predicate {
	return PredicateFunc(func(e Event) bool {
		for _, p := range predicates {
			if p.Allow(e) {
				return true
			}
		}
		return false
	})
}

// Not allows exactly the events p refuses.
func Not(p Predicate) Predicate {
	return PredicateFunc(func(e Event) bool { return !p.Allow(e) })
}

// OnlyEventTypes allows the events of the given types and refuses the rest.
// Combine it with Or to apply a predicate to one kind of event only, e.g.
// to filter updates but let every create and delete through:
//
//	Or(OnlyEventTypes(Create, Delete), LabelsChanged())
func OnlyEventTypes(types ...EventType) Predicate {
	return PredicateFunc(func(e Event) bool {
		for _, t := range types {
			if e.Type == t {
				return true
			}
		}
		return false
	})
}

// onUpdate lets creates and deletes through and judges updates with changed.
func onUpdate(changed func(e Event) bool) Predicate {
	return PredicateFunc(func(e Event) bool {
		return e.Type != Update || changed(e)
	})
}

// GenerationChanged allows updates that changed metadata.generation, which
// the API server bumps on spec changes of most resources, and every create
// and delete. Beware: objects without a generation (ConfigMaps, Secrets,
// Pods' status) never change it, so this refuses all their updates.
func GenerationChanged() Predicate {
	return onUpdate(func(e Event) bool {
		return e.OldObject.GetGeneration() != e.Object.GetGeneration()
	})
}

// ResourceVersionChanged allows updates that changed metadata.resourceVersion
// (refusing periodic resyncs), and every create and delete.
func ResourceVersionChanged() Predicate {
	return onUpdate(func(e Event) bool { return !e.IsResync() })
}

// LabelsChanged allows updates that changed the object's labels, and every
// create and delete.
func LabelsChanged() Predicate {
	return onUpdate(func(e Event) bool {
		return !maps.Equal(e.OldObject.GetLabels(), e.Object.GetLabels())
	})
}

// AnnotationsChanged allows updates that changed the object's annotations,
// and every create and delete.
func AnnotationsChanged() Predicate {
	return onUpdate(func(e Event) bool {
		return !maps.Equal(e.OldObject.GetAnnotations(), e.Object.GetAnnotations())
	})
}

// LabelSelector allows events whose object matches selector. An update is
// allowed when the old or the new object matches, so an object whose labels
// stop matching is seen one last time.
func LabelSelector(selector labels.Selector) Predicate {
	return PredicateFunc(func(e Event) bool {
		if selector.Matches(labels.Set(e.Object.GetLabels())) {
			return true
		}
		return e.Type == Update && selector.Matches(labels.Set(e.OldObject.GetLabels()))
	})
}
