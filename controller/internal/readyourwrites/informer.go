package readyourwrites

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/tools/cache"
)

// trackedInformer is one tracked informer: the recorded writes that held
// keys wait for it to deliver (see Tracker for the invariants).
type trackedInformer struct {
	// informer's store is read only when a hold starts, so that tracking
	// asks nothing more of a custom informer than a handler.
	informer cache.SharedInformer
	pending  atomic.Int64

	mu      sync.Mutex
	waiting map[cache.ObjectName][]*write
}

// write is one recorded write: what the informer's cache must reach for it
// to count as seen, and the hold that waits for it.
type write struct {
	name cache.ObjectName
	// resourceVersion: the cache must hold name at this version or newer
	// (or have delivered its deletion). Empty for a delete.
	resourceVersion string
	// deleted: the cache must have delivered the deletion of name, or hold
	// no object of that name with uid (any uid if empty).
	deleted bool
	uid     types.UID

	from *trackedInformer
	hold *Writes
}

// add starts waiting for w. The caller then calls checkCache: an object
// the store already holds was delivered before add.
func (ti *trackedInformer) add(w *write) {
	ti.mu.Lock()
	ti.waiting[w.name] = append(ti.waiting[w.name], w)
	ti.pending.Add(1)
	ti.mu.Unlock()
}

// checkCache counts w as seen if the informer's cache has caught up.
func (ti *trackedInformer) checkCache(w *write) {
	obj, exists, err := ti.informer.GetStore().GetByKey(w.name.String())
	switch {
	case err != nil:
		return
	case !exists:
		if !w.deleted {
			return
		}
	case !w.metBy(obj, false):
		return
	}
	if ti.resolve(w) {
		w.hold.seen()
	}
}

// resolve stops waiting for w and reports whether it was still awaited:
// exactly one caller resolves a write.
func (ti *trackedInformer) resolve(w *write) bool {
	ti.mu.Lock()
	defer ti.mu.Unlock()
	ws := ti.waiting[w.name]
	for i, other := range ws {
		if other == w {
			ws = append(ws[:i], ws[i+1:]...)
			if len(ws) == 0 {
				delete(ti.waiting, w.name)
			} else {
				ti.waiting[w.name] = ws
			}
			ti.pending.Add(-1)
			return true
		}
	}
	return false
}

// delivered is called with every object the informer hands the
// controller's handler.
func (ti *trackedInformer) delivered(obj any, deleted bool) {
	if ti.pending.Load() == 0 {
		return
	}
	var name cache.ObjectName
	if tombstone, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		var err error
		if name, err = cache.ParseObjectName(tombstone.Key); err != nil {
			return
		}
	} else if m, err := meta.Accessor(obj); err == nil {
		name = cache.MetaObjectToName(m)
	} else {
		return
	}
	var seen []*write
	ti.mu.Lock()
	ws := ti.waiting[name]
	kept := ws[:0]
	for _, w := range ws {
		if w.metBy(obj, deleted) {
			seen = append(seen, w)
		} else {
			kept = append(kept, w)
		}
	}
	clear(ws[len(kept):])
	if len(kept) == 0 {
		delete(ti.waiting, name)
	} else {
		ti.waiting[name] = kept
	}
	ti.pending.Add(-int64(len(seen)))
	ti.mu.Unlock()
	for _, w := range seen {
		w.hold.seen()
	}
}

// metBy reports whether a cache that delivered obj (deleted, if it was a
// deletion) has caught up with w. A deletion is newer than any write to
// the object.
func (w *write) metBy(obj any, deleted bool) bool {
	if deleted {
		return true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	if w.deleted {
		return w.uid != "" && m.GetUID() != w.uid && m.GetUID() != types.UID("")
	}
	cmp, err := resourceversion.CompareResourceVersion(m.GetResourceVersion(), w.resourceVersion)
	return err != nil || cmp >= 0
}
