package informer

import (
	"fmt"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/cache"
)

// The index side of objects: client-go's semantics, with the namespace
// index answered from byNamespace when it is native.

func errNoIndex(name string) error {
	return fmt.Errorf("Index with name %s does not exist", name) //nolint:staticcheck // client-go's message, which callers may match
}

// Index returns the objects that share an indexed value with obj in the
// named index.
func (o *objects) Index(indexName string, obj any) ([]any, error) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	f := o.indexers[indexName]
	if f == nil {
		return nil, errNoIndex(indexName)
	}
	values, err := f(obj)
	if err != nil {
		return nil, err
	}
	if o.isNativeLocked(indexName) && len(values) == 1 {
		// Listers ask this way for a namespace's objects (see
		// cache.ListAllByNamespace): hand them over without going
		// through their keys.
		return o.objectsInLocked(values[0]), nil
	}
	keys := o.keysForValuesLocked(indexName, values)
	list := make([]any, 0, len(keys))
	for _, key := range keys {
		list = append(list, o.byNamespace[namespaceOf(key)][key])
	}
	return list, nil
}

// keysForValuesLocked returns the keys indexed under any of values, each
// once.
func (o *objects) keysForValuesLocked(indexName string, values []string) []string {
	if o.isNativeLocked(indexName) {
		var keys []string
		for _, ns := range sets.New(values...).UnsortedList() {
			keys = slices.AppendSeq(keys, maps.Keys(o.byNamespace[ns]))
		}
		return keys
	}
	index := o.indices[indexName]
	if len(values) == 1 {
		return index[values[0]].UnsortedList()
	}
	union := sets.New[string]()
	for _, v := range values {
		union = union.Union(index[v])
	}
	return union.UnsortedList()
}

// objectsInLocked returns the objects of namespace ns.
func (o *objects) objectsInLocked(ns string) []any {
	inNamespace := o.byNamespace[ns]
	return slices.AppendSeq(make([]any, 0, len(inNamespace)), maps.Values(inNamespace))
}

func (o *objects) isNativeLocked(indexName string) bool {
	return indexName == cache.NamespaceIndex && o.nativeNamespaceIndex
}

// IndexKeys returns, sorted, the keys of the objects indexed under
// indexedValue in the named index.
func (o *objects) IndexKeys(indexName, indexedValue string) ([]string, error) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.indexers[indexName] == nil {
		return nil, errNoIndex(indexName)
	}
	if o.isNativeLocked(indexName) {
		return o.keysInLocked(indexedValue), nil
	}
	return sets.List(o.indices[indexName][indexedValue]), nil
}

// ByIndex returns the objects indexed under indexedValue in the named
// index.
func (o *objects) ByIndex(indexName, indexedValue string) ([]any, error) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.indexers[indexName] == nil {
		return nil, errNoIndex(indexName)
	}
	if o.isNativeLocked(indexName) {
		return o.objectsInLocked(indexedValue), nil
	}
	keys := o.indices[indexName][indexedValue]
	list := make([]any, 0, len(keys))
	for key := range keys {
		list = append(list, o.byNamespace[namespaceOf(key)][key])
	}
	return list, nil
}

// ListIndexFuncValues returns the values the named index holds objects
// under; none for an unknown index.
func (o *objects) ListIndexFuncValues(indexName string) []string {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.isNativeLocked(indexName) {
		return slices.AppendSeq(make([]string, 0, len(o.byNamespace)), maps.Keys(o.byNamespace))
	}
	index := o.indices[indexName]
	return slices.AppendSeq(make([]string, 0, len(index)), maps.Keys(index))
}

// GetIndexers returns the store's index functions by name.
func (o *objects) GetIndexers() cache.Indexers {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return maps.Clone(o.indexers)
}

// AddIndexers adds indexes and indexes the stored objects in them. It adds
// none if any name is taken.
func (o *objects) AddIndexers(newIndexers cache.Indexers) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	taken := sets.KeySet(o.indexers).Intersection(sets.KeySet(newIndexers))
	if taken.Len() > 0 {
		return fmt.Errorf("indexer conflict: %v", taken)
	}
	for name, f := range newIndexers {
		o.addIndexerLocked(name, f)
		index := o.indices[name]
		if index == nil {
			continue // native: nothing to build
		}
		for _, inNamespace := range o.byNamespace {
			for key, obj := range inNamespace {
				indexUnder(index, key, indexValues(f, name, key, obj))
			}
		}
	}
	return nil
}

// reindexLocked moves key from old's values to obj's in every kept index;
// a nil old is an add, a nil obj a delete.
func (o *objects) reindexLocked(key string, old, obj any) {
	for name, index := range o.indices {
		f := o.indexers[name]
		var before, after []string
		if old != nil {
			before = indexValues(f, name, key, old)
		}
		if obj != nil {
			after = indexValues(f, name, key, obj)
		}
		if len(before) == 1 && len(after) == 1 && before[0] == after[0] {
			continue // the common update: same single value
		}
		for _, v := range before {
			if keys := index[v]; keys != nil {
				keys.Delete(key)
				if keys.Len() == 0 {
					delete(index, v) // kubernetes#84959
				}
			}
		}
		indexUnder(index, key, after)
	}
}

func indexUnder(index map[string]sets.Set[string], key string, values []string) {
	for _, v := range values {
		keys := index[v]
		if keys == nil {
			keys = sets.New[string]()
			index[v] = keys
		}
		keys.Insert(key)
	}
}

// indexValues calls an index function. An index function that fails on a
// stored object leaves the index unable to answer for it; client-go's
// store panics then, and so does this one, naming the key and the index.
func indexValues(f cache.IndexFunc, name, key string, obj any) []string {
	values, err := f(obj)
	if err != nil {
		panic(fmt.Errorf("unable to calculate an index entry for key %q on index %q: %w", key, name, err))
	}
	return values
}
