package handler

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"
)

// OwnerLookup fetches a would-be owner by namespace and name, typically from
// an informer's cache: see [IndexerLookup], or wrap a lister:
//
//	func(ns, name string) (metav1.Object, error) { return dLister.Deployments(ns).Get(name) }
//
// namespace is empty when the owner's kind is cluster-scoped. An error (of
// any kind, not found included) means "no such owner".
type OwnerLookup func(namespace, name string) (metav1.Object, error)

// IndexerLookup returns an OwnerLookup reading the store of an informer
// (informer.GetIndexer()) by its key: "namespace/name", or "name" for a
// cluster-scoped owner, as cache.MetaNamespaceKeyFunc files them.
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
// scope says where objects of the owner's kind live, as a RESTMapper's
// mapping.Scope does: meta.RESTScopeNamespace for an owner in its
// dependent's namespace (a Deployment owning ReplicaSets),
// meta.RESTScopeRoot for a cluster-scoped owner (a Node owning its mirror
// Pods). Any other scope, nil included, panics.
//
// Like kube-controller-manager, it resolves the owner through lookup, in the
// dependent's namespace or, for a cluster-scoped owner, by name alone, and
// enqueues it only if its UID matches the reference, so a dependent left
// over from a deleted owner never wakes a new owner with the same name. A
// nil lookup trusts the reference: key then receives an ObjectMeta with the
// reference's name and UID, and the dependent's namespace if the owner is
// namespaced.
//
// Updates map both the old and the new object, so changing or removing a
// controller reference wakes both the old and the new owner.
func ForControllerOf[K comparable](owner schema.GroupKind, scope meta.RESTScope, lookup OwnerLookup, key func(owner metav1.Object) K) Handler[K] {
	namespaced := isNamespaced(scope)
	return Map(func(obj metav1.Object) []K {
		if o := resolveControllerRef(obj, owner, namespaced, lookup); o != nil {
			return []K{key(o)}
		}
		return nil
	})
}

// isNamespaced reports whether scope is meta.RESTScopeNamespace's, and
// panics unless it is that or meta.RESTScopeRoot's: a wrong guess would
// look owners up under the wrong key and never find them.
func isNamespaced(scope meta.RESTScope) bool {
	if scope != nil {
		switch scope.Name() {
		case meta.RESTScopeNameNamespace:
			return true
		case meta.RESTScopeNameRoot:
			return false
		}
	}
	panic(fmt.Sprintf("handler: ForControllerOf needs the owner's scope, meta.RESTScopeNamespace or meta.RESTScopeRoot; got %v", scope))
}

// resolveControllerRef returns obj's controller owner when it is of kind gk
// and, if lookup is set, still exists with the referenced UID. A namespaced
// owner is in obj's namespace.
func resolveControllerRef(obj metav1.Object, gk schema.GroupKind, namespaced bool, lookup OwnerLookup) metav1.Object {
	ref := metav1.GetControllerOfNoCopy(obj)
	if ref == nil || ref.Kind != gk.Kind {
		return nil
	}
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil || gv.Group != gk.Group {
		return nil
	}
	namespace := ""
	if namespaced {
		namespace = obj.GetNamespace()
	}
	if lookup == nil {
		return &metav1.ObjectMeta{Namespace: namespace, Name: ref.Name, UID: ref.UID}
	}
	o, err := lookup(namespace, ref.Name)
	if err != nil || o == nil || o.GetUID() != ref.UID {
		return nil
	}
	return o
}
