package handler

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ObjectKey returns obj's "namespace/name", or "name" for a cluster-scoped
// object: the key cache.MetaNamespaceKeyFunc computes and
// cache.SplitMetaNamespaceKey splits.
func ObjectKey(obj metav1.Object) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}

// ObjectNamespacedName returns obj's namespace and name.
func ObjectNamespacedName(obj metav1.Object) types.NamespacedName {
	return types.NamespacedName{Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

// ForObject returns a Handler that enqueues the object of each event, keyed
// by key: ObjectKey for string keys, ObjectNamespacedName for
// types.NamespacedName keys, or a function of your own.
//
// An object's key must not change over its life (as namespace and name do
// not), since updates only map the new object.
func ForObject[K comparable](key func(obj metav1.Object) K) Handler[K] {
	return Handler[K]{keys: func(e Event) []K { return []K{key(e.Object)} }}
}

// Map returns a Handler that enqueues the keys mapKeys returns for each
// event's object (for updates, for both the old and the new object). mapKeys
// may return nil to enqueue nothing; a key it returns more than once is
// added once.
func Map[K comparable](mapKeys func(obj metav1.Object) []K) Handler[K] {
	return Handler[K]{keys: func(e Event) []K {
		if e.Type == Update {
			return slices.Concat(mapKeys(e.Object), mapKeys(e.OldObject))
		}
		return mapKeys(e.Object)
	}}
}

// MapEvent returns a Handler that enqueues the keys mapEvent returns for
// each event, seeing the whole event: its type and, for updates, both
// objects. It is for rules that a view of one object cannot express, such
// as kube-controller-manager's "a ReplicaSet whose labels changed wakes the
// Deployments that select it now or selected it before, unless it has a
// controller". Tombstones are unwrapped and the priority is chosen as for
// every Handler; duplicate keys are added once.
func MapEvent[K comparable](mapEvent func(e Event) []K) Handler[K] {
	return Handler[K]{keys: mapEvent}
}
