package informer

import (
	"k8s.io/client-go/tools/cache"
)

// keyOf is the store's key function: "namespace/name", or the key a
// tombstone carries.
var keyOf = cache.DeletionHandlingMetaNamespaceKeyFunc

// indexer is a cache.Indexer over the informer's objects, as
// cache.NewIndexer builds one over a cache.ThreadSafeStore. The informer
// uses the keyed methods of objects directly, so an event's key is computed
// once, not once per lookup and once per write.
type indexer struct {
	*objects
}

var _ cache.Indexer = indexer{}

func newIndexer(indexers cache.Indexers) indexer {
	return indexer{newObjects(indexers)}
}

func key(obj any) (string, error) {
	k, err := keyOf(obj)
	if err != nil {
		return "", cache.KeyError{Obj: obj, Err: err}
	}
	return k, nil
}

// Add stores obj under its key.
func (x indexer) Add(obj any) error {
	k, err := key(obj)
	if err != nil {
		return err
	}
	x.objects.Add(k, obj)
	return nil
}

// Update stores obj under its key, as Add does.
func (x indexer) Update(obj any) error { return x.Add(obj) }

// Delete removes the object stored under obj's key; obj's resource version
// becomes the store's, as in client-go.
func (x indexer) Delete(obj any) error {
	k, err := key(obj)
	if err != nil {
		return err
	}
	x.objects.DeleteWithObject(k, obj)
	return nil
}

// Get returns the object stored under obj's key.
func (x indexer) Get(obj any) (item any, exists bool, err error) {
	k, err := key(obj)
	if err != nil {
		return nil, false, err
	}
	return x.GetByKey(k)
}

// GetByKey returns the object stored under key.
func (x indexer) GetByKey(key string) (item any, exists bool, err error) {
	item, exists = x.objects.Get(key)
	return item, exists, nil
}

// Replace makes list the store's content.
func (x indexer) Replace(list []any, resourceVersion string) error {
	items, _, err := keyed(list)
	if err != nil {
		return err
	}
	x.objects.Replace(items, resourceVersion)
	return nil
}

// keyed returns list's objects by key, and the key of each.
func keyed(list []any) (items map[string]any, keys []string, err error) {
	items = make(map[string]any, len(list))
	keys = make([]string, len(list))
	for n, obj := range list {
		if keys[n], err = key(obj); err != nil {
			return nil, nil, err
		}
		items[keys[n]] = obj
	}
	return items, keys, nil
}

// Resync does nothing: the informer's resyncs are its own.
func (x indexer) Resync() error { return nil }
