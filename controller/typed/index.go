package typed

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"k8s.io/client-go/tools/cache"
)

// allNamespaces is the namespace part of the index keys that a lookup
// across namespaces uses. No namespace is named "*".
const allNamespaces = "*"

// IndexField adds an index called name to the informer: extract returns
// the values an object is found under, e.g. the names of its controller
// owners, and MatchingField finds the objects under a value. The index is
// kept per namespace for the caller, so extract returns plain values. It is
// controller-runtime's IndexField, for one informer of T:
//
//	jobs.IndexField("owner", func(j *batchv1.Job) []string {
//		if ref := metav1.GetControllerOf(j); ref != nil && ref.Kind == "CronJob" {
//			return []string{ref.Name}
//		}
//		return nil
//	})
//
// Call it before the informer starts, so that no lookup sees a half-built
// index; it fails after, or if name is empty or already taken.
func (i *Informer[T]) IndexField(name string, extract func(T) []string) error {
	if name == "" || extract == nil {
		return errors.New("typed: IndexField needs a name and an extract function")
	}
	if s, ok := i.informer.(interface{ HasStarted() bool }); ok && s.HasStarted() {
		return fmt.Errorf("typed: IndexField(%q) after the informer started: add indexes before starting its factory", name)
	}
	if _, taken := i.informer.GetIndexer().GetIndexers()[name]; taken {
		return fmt.Errorf("typed: IndexField(%q): the informer already has an index of that name", name)
	}
	index := func(obj any) ([]string, error) {
		t, ok := obj.(T)
		if !ok {
			return nil, fmt.Errorf("typed: index %q: object of type %T in an informer of %T", name, obj, t)
		}
		values := extract(t)
		keys := make([]string, 0, 2*len(values))
		for _, v := range values {
			keys = append(keys, indexKey(allNamespaces, v))
			if ns := t.GetNamespace(); ns != "" {
				keys = append(keys, indexKey(ns, v))
			}
		}
		return keys, nil
	}
	if err := i.informer.AddIndexers(cache.Indexers{name: index}); err != nil {
		return fmt.Errorf("typed: IndexField(%q): %w", name, err)
	}
	return nil
}

// MatchingField returns the objects in namespace (every namespace if
// empty) that the index name, added with IndexField, holds under value,
// sorted by namespace and name. It is controller-runtime's
// client.MatchingFields for one field, read from the informer's store:
// the objects belong to the cache, so copy them before changing them.
func (i *Informer[T]) MatchingField(namespace, name, value string) ([]T, error) {
	if namespace == "" {
		namespace = allNamespaces
	}
	objs, err := i.informer.GetIndexer().ByIndex(name, indexKey(namespace, value))
	if err != nil {
		return nil, fmt.Errorf("typed: MatchingField(%q): %w", name, err)
	}
	out := make([]T, 0, len(objs))
	for _, obj := range objs {
		out = append(out, obj.(T))
	}
	slices.SortFunc(out, func(a, b T) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	return out, nil
}

func indexKey(namespace, value string) string { return namespace + "/" + value }
