package informer

import (
	"k8s.io/client-go/tools/cache"
)

// store is the Informer as its reflector sees it: a cache.ReflectorStore
// that applies each change to the indexer and hands it to every handler
// before the reflector reads the next event.
type store Informer

var (
	_ cache.ReflectorStore    = (*store)(nil)
	_ cache.TransformingStore = (*store)(nil)
)

// Transformer lets the reflector apply the same transform to the objects it
// streams during a watch-list before handing them to Replace.
func (s *store) Transformer() cache.TransformFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.transform
}

func (s *store) transformed(obj any) (any, error) {
	if s.transform == nil {
		return obj, nil
	}
	return s.transform(obj)
}

// Add applies a watch event that added obj.
func (s *store) Add(obj any) error { return s.upsert(obj) }

// Update applies a watch event that modified obj.
func (s *store) Update(obj any) error { return s.upsert(obj) }

// upsert stores obj and reports it as an add, or as an update of the
// object it replaces: a watch may report as added an object the store
// already holds (after a relist), and handlers then see an update, as with
// client-go.
func (s *store) upsert(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, err := s.transformed(obj)
	if err != nil {
		return err
	}
	k, err := key(obj)
	if err != nil {
		return err
	}
	old, exists := s.indexer.swap(k, obj)
	for _, r := range s.handlers {
		if exists {
			r.handler.OnUpdate(old, obj)
		} else {
			r.handler.OnAdd(obj, false)
		}
	}
	return nil
}

// Delete applies a watch event that deleted obj. Handlers see it even if
// the store never held obj, as with client-go's informer.
func (s *store) Delete(obj any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, err := s.transformed(obj)
	if err != nil {
		return err
	}
	if err := s.indexer.Delete(obj); err != nil {
		return err
	}
	for _, r := range s.handlers {
		r.handler.OnDelete(obj)
	}
	return nil
}

// Replace applies a full list. Handlers first see a
// cache.DeletedFinalStateUnknown delete for each object the list no longer
// has (it was deleted while the informer was not watching), then, in list
// order, an add for each object new to the store (isInInitialList until the
// informer has synced) and an update for each object it held. The store is
// replaced before any handler runs. This is client-go's order.
func (s *store) Replace(list []any, resourceVersion string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for n, obj := range list {
		t, err := s.transformed(obj)
		if err != nil {
			return err
		}
		list[n] = t
	}

	items, keys, err := keyed(list)
	if err != nil {
		return err
	}
	previous := s.indexer.replace(items, resourceVersion)
	var gone []cache.DeletedFinalStateUnknown
	for _, inNamespace := range previous {
		for k, old := range inNamespace {
			if _, listed := items[k]; !listed {
				gone = append(gone, cache.DeletedFinalStateUnknown{Key: k, Obj: old})
			}
		}
	}

	for _, tombstone := range gone {
		for _, r := range s.handlers {
			r.handler.OnDelete(tombstone)
		}
	}
	initial := !s.hasSynced
	for n, obj := range list {
		old := previous[namespaceOf(keys[n])][keys[n]]
		for _, r := range s.handlers {
			if old != nil {
				r.handler.OnUpdate(old, obj)
			} else {
				r.handler.OnAdd(obj, initial)
			}
		}
	}
	if initial {
		s.hasSynced = true
		close(s.synced)
	}
	return nil
}

// Resync hands every stored object, as an update from itself to itself,
// to the handlers whose resync period has passed.
func (s *store) Resync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var due []*registration
	for _, r := range s.handlers {
		if r.due {
			r.due = false
			due = append(due, r)
		}
	}
	if len(due) == 0 {
		return nil
	}
	for _, obj := range s.indexer.List() {
		for _, r := range due {
			r.handler.OnUpdate(obj, obj)
		}
	}
	return nil
}
