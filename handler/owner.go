package handler

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// OwnerLookup fetches a would-be owner by namespace and name, typically from
// an informer's cache: see [IndexerLookup], or wrap a lister:
//
//	func(ns, name string) (metav1.Object, error) { return dLister.Deployments(ns).Get(name) }
//
// An error (of any kind, not found included) means "no such owner".
type OwnerLookup func(namespace, name string) (metav1.Object, error)

// IndexerLookup returns an OwnerLookup reading the store of an informer
// (informer.GetIndexer()) by its "namespace/name" key.
func IndexerLookup(store cache.Store) OwnerLookup {
	return func(namespace, name string) (metav1.Object, error) {
		key := name
		if namespace != "" {
			key = namespace + "/" + name
		}
		obj, exists, err := store.GetByKey(key)
		if err != nil {
			return nil, err
		}
		if !exists {
			return nil, fmt.Errorf("%s not found", key)
		}
		o, ok := objectMeta(obj)
		if !ok {
			return nil, fmt.Errorf("%s: %T has no object metadata", key, obj)
		}
		return o, nil
	}
}

// ForControllerOf returns a Handler that enqueues the controller owner of
// each event's object (the owner reference with controller: true), keyed by
// key applied to the owner, when that owner is of the given group and kind.
//
// Like kube-controller-manager, it resolves the owner through lookup in the
// dependent's namespace and enqueues it only if its UID matches the
// reference, so a dependent left over from a deleted owner never wakes a new
// owner with the same name. For cluster-scoped owners, lookup receives the
// dependent's namespace and should ignore it. A nil lookup trusts the
// reference: key then receives an ObjectMeta with the reference's name and
// UID and the dependent's namespace.
//
// Updates map both the old and the new object, so changing or removing a
// controller reference wakes both the old and the new owner.
func ForControllerOf[K comparable](owner schema.GroupKind, lookup OwnerLookup, key func(owner metav1.Object) K) Handler[K] {
	return Map(func(obj metav1.Object) []K {
		if o := resolveControllerRef(obj, owner, lookup); o != nil {
			return []K{key(o)}
		}
		return nil
	})
}

// resolveControllerRef returns obj's controller owner when it is of kind gk
// and, if lookup is set, still exists with the referenced UID.
func resolveControllerRef(obj metav1.Object, gk schema.GroupKind, lookup OwnerLookup) metav1.Object {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != gk.Kind {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != gk.Group {
		return nil
	}
	if lookup == nil {
		return &metav1.ObjectMeta{Namespace: obj.GetNamespace(), Name: ref.Name, UID: ref.UID}
	}
	o, err := lookup(obj.GetNamespace(), ref.Name)
	if err != nil || o == nil || o.GetUID() != ref.UID {
		return nil
	}
	return o
}
