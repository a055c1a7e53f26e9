package controller

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/tools/cache"
)

// watchedProgress is a controller's progress trackers, one per watched
// informer, created by Watch.
type watchedProgress struct {
	mu         sync.Mutex
	byInformer map[cache.SharedInformer]*informerProgress
}

// progressOf returns the tracker of informer, nil if it is not watched.
// client-go's typed informers wrap the factory's informer anew on every
// Informer() call, so an informer that is not the value passed to Watch
// matches the watched one that has the same store.
func (w *watchedProgress) progressOf(informer cache.SharedInformer) *informerProgress {
	if informer == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := w.byInformer[informer]; p != nil {
		return p
	}
	store := informer.GetStore()
	for _, p := range w.byInformer {
		if p.informer.GetStore() == store {
			return p
		}
	}
	return nil
}

// track returns informer's tracker, creating it on first use.
func (w *watchedProgress) track(informer cache.SharedInformer) *informerProgress {
	w.mu.Lock()
	defer w.mu.Unlock()
	if p := w.byInformer[informer]; p != nil {
		return p
	}
	if w.byInformer == nil {
		w.byInformer = make(map[cache.SharedInformer]*informerProgress)
	}
	p := &informerProgress{informer: informer, waiting: make(map[cache.ObjectName][]*wait)}
	w.byInformer[informer] = p
	return p
}

// informerProgress tells held keys when one informer has delivered the
// objects they wait for. It sees the informer's deliveries through the
// controller's own event handler (progressHandler), and its cache through
// the informer's store, which the informer updates before it notifies
// handlers.
//
// Invariant: waiting holds exactly the waits of unreleased holds that are
// not yet observed, and pending is their number. Nothing else is kept per
// object, so memory is bounded by the writes held keys wait for, and an
// informer nobody waits on costs one atomic load per event.
type informerProgress struct {
	// informer's store is read only when a hold starts, so that Watch
	// asks nothing more of a custom informer than a handler.
	informer cache.SharedInformer
	pending  atomic.Int64

	mu      sync.Mutex
	waiting map[cache.ObjectName][]*wait
}

// wait is one recorded write that a hold waits for.
type wait struct {
	progress *informerProgress
	want     expectation
	hold     *hold
}

// add starts watching for w. The caller then calls checkCache: an object
// the store already holds was delivered before add.
func (p *informerProgress) add(w *wait) {
	p.mu.Lock()
	p.waiting[w.want.name] = append(p.waiting[w.want.name], w)
	p.pending.Add(1)
	p.mu.Unlock()
}

// checkCache resolves w if the informer's cache has already caught up.
func (p *informerProgress) checkCache(w *wait) {
	obj, exists, err := p.informer.GetStore().GetByKey(w.want.name.String())
	switch {
	case err != nil:
		return
	case !exists:
		if !w.want.deleted {
			return
		}
	case !w.want.metBy(obj, false):
		return
	}
	if p.resolve(w) {
		w.hold.observed()
	}
}

// resolve stops watching for w and reports whether it was still watched:
// exactly one caller resolves a wait.
func (p *informerProgress) resolve(w *wait) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	ws := p.waiting[w.want.name]
	for i, other := range ws {
		if other == w {
			ws = append(ws[:i], ws[i+1:]...)
			if len(ws) == 0 {
				delete(p.waiting, w.want.name)
			} else {
				p.waiting[w.want.name] = ws
			}
			p.pending.Add(-1)
			return true
		}
	}
	return false
}

// delivered is called with every object the informer hands its handlers.
func (p *informerProgress) delivered(obj any, deleted bool) {
	if p.pending.Load() == 0 {
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
	var observed []*wait
	p.mu.Lock()
	ws := p.waiting[name]
	kept := ws[:0]
	for _, w := range ws {
		if w.want.metBy(obj, deleted) {
			observed = append(observed, w)
		} else {
			kept = append(kept, w)
		}
	}
	clear(ws[len(kept):])
	if len(kept) == 0 {
		delete(p.waiting, name)
	} else {
		p.waiting[name] = kept
	}
	p.pending.Add(-int64(len(observed)))
	p.mu.Unlock()
	for _, w := range observed {
		w.hold.observed()
	}
}

// metBy reports whether a cache that delivered obj (deleted, if it was a
// deletion) has caught up with e. A deletion is newer than any write to
// the object. Versions that apimachinery cannot compare (not issued by a
// server) count as caught up: the controller never holds a key on a write
// it cannot judge.
func (e expectation) metBy(obj any, deleted bool) bool {
	if deleted {
		return true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return true
	}
	if e.deleted {
		return e.uid != "" && m.GetUID() != e.uid && m.GetUID() != types.UID("")
	}
	cmp, err := resourceversion.CompareResourceVersion(m.GetResourceVersion(), e.resourceVersion)
	return err != nil || cmp >= 0
}

// progressHandler tells an informer's tracker of each delivery before
// passing it on to the handler the controller enqueues keys with.
type progressHandler struct {
	progress *informerProgress
	next     cache.ResourceEventHandler
}

func (h progressHandler) OnAdd(obj any, isInInitialList bool) {
	h.progress.delivered(obj, false)
	h.next.OnAdd(obj, isInInitialList)
}

func (h progressHandler) OnUpdate(oldObj, newObj any) {
	h.progress.delivered(newObj, false)
	h.next.OnUpdate(oldObj, newObj)
}

func (h progressHandler) OnDelete(obj any) {
	h.progress.delivered(obj, true)
	h.next.OnDelete(obj)
}
