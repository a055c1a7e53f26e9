package handler

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// EventType is the kind of an informer event.
type EventType int

// The kinds of informer events.
const (
	// Create is an object seen for the first time, from the initial list or
	// from a watch.
	Create EventType = iota + 1
	// Update is a change to an object, or a periodic resync of it.
	Update
	// Delete is an object's removal.
	Delete
)

// String returns the event type's name.
func (t EventType) String() string {
	switch t {
	case Create:
		return "Create"
	case Update:
		return "Update"
	case Delete:
		return "Delete"
	default:
		return "EventType(unknown)"
	}
}

// Event is one informer event, as predicates and mappings see it.
type Event struct {
	// Type is the kind of event.
	Type EventType
	// Object is the object after the event: the created object, the new
	// object of an update, the last known state of a deleted object.
	Object metav1.Object
	// OldObject is the object before an update; nil for other events.
	OldObject metav1.Object
	// InInitialList marks a Create from the informer's initial list.
	InInitialList bool
	// FinalStateUnknown marks a Delete that the informer missed: Object is
	// the last state it had cached, which may be stale.
	FinalStateUnknown bool
}

// IsResync reports whether e is a periodic resync: an update that did not
// change the object's resourceVersion.
func (e Event) IsResync() bool {
	return e.Type == Update && e.OldObject != nil &&
		e.OldObject.GetResourceVersion() == e.Object.GetResourceVersion()
}
