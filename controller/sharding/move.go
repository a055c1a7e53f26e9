package sharding

import (
	"context"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/features"
	"k8s.io/client-go/tools/cache"
)

// storeCatchUpTimeout bounds how long a move waits for the informer to
// put what the watch passed on into its store; past it, the watch ends
// and the reflector lists again.
const storeCatchUpTimeout = 10 * time.Second

// moveTo moves the watch to the ring's new target without ending it.
//
// Ending it would make the reflector list again, but only after its
// backoff: 0.8 s, doubling at each relist within two minutes, up to
// 30 s. Meanwhile the informer's cache would stand still, for the
// ranges the member keeps as well, and their keys would be reconciled on
// it, their own writes unseen (a Deployment's new ReplicaSet missing,
// so that the next pass creates it again and fails).
//
// So the move does what the relist would, on the same watch: it waits
// until the informer's store holds everything the watch passed on, lists
// the new target (a consistent read, as ListWithContext does), and
// passes on the events that turn the store into the list: Deleted for
// each object the store holds and the list does not (as the API server's
// watch does for an object that no longer matches its selector), Added
// or Modified for each listed object, and a Bookmark at the list's
// resourceVersion, from which it then watches the new target. It
// reports false once the watch has ended: stopped, or, where it cannot
// move (an informer of its own that it cannot see the store of, a failed
// list), after an expired error event.
func (w *shardWatch) moveTo() bool {
	s := w.lw
	if !s.canMove() || !s.awaitStore(w.ctx, w.stop, w.lastRV) {
		w.send(expired())
		return false
	}
	list, target, changed, err := s.list(w.ctx, metav1.ListOptions{})
	if err != nil {
		s.log.V(2).Info("Listing the new shard range failed; the informer lists again", "err", err)
		w.send(expired())
		return false
	}
	listRV := ""
	if m, err := meta.ListAccessor(list); err == nil {
		listRV = m.GetResourceVersion()
	}
	// Each item its own allocation, as the reflector's own list takes
	// them: one cached item would otherwise keep the list's whole array.
	items, err := meta.ExtractListWithAlloc(list)
	if err != nil {
		s.log.Error(err, "Reading the list of the new shard range failed; the informer lists again")
		w.send(expired())
		return false
	}
	deleted := s.notListed(items)
	s.ring.listing(s.cache, target, changed, append(deleted, items...))
	s.listed(target, changed)
	w.target, w.changed = target, changed

	for _, obj := range deleted {
		if !w.send(watch.Event{Type: watch.Deleted, Object: obj}) {
			return false
		}
	}
	for _, obj := range items {
		ev := watch.Event{Type: watch.Added, Object: obj}
		if _, exists, _ := s.cache.indexer.Get(obj); exists {
			ev.Type = watch.Modified
		}
		if !w.send(ev) {
			return false
		}
	}
	if !w.send(watch.Event{Type: watch.Bookmark, Object: s.bookmark(listRV)}) {
		return false
	}

	opts := w.opts
	opts.ResourceVersion = listRV
	s.restrict(&opts, target)
	inner, err := s.lw.WatchWithContext(w.ctx, opts)
	if err != nil {
		// The watch ends; the reflector watches again from the bookmark.
		s.log.V(2).Info("Watching the new shard range failed", "err", err)
		return false
	}
	w.inner = inner
	return true
}

// canMove reports whether the watch can move in place: the informer is
// one Informer registered, whose store it can see, and whose store
// tracks the resourceVersion it has reached (client-go's AtomicFIFO, on
// by default).
func (s *shardedListWatch) canMove() bool {
	return s.cache != nil && s.cache.indexer != nil && s.example != nil &&
		features.FeatureGates().Enabled(features.AtomicFIFO)
}

// awaitStore waits until the informer's store has reached resourceVersion
// rv, that of the last event the watch passed on: the informer applies
// events in order, so the store then holds all of them. It reports false
// if rv is unknown, the store does not get there within
// storeCatchUpTimeout, or the watch ends.
func (s *shardedListWatch) awaitStore(ctx context.Context, stop <-chan struct{}, rv string) bool {
	if rv == "" {
		return false
	}
	timeout := time.NewTimer(storeCatchUpTimeout)
	defer timeout.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for s.cache.indexer.LastStoreSyncResourceVersion() != rv {
		select {
		case <-ctx.Done():
			return false
		case <-stop:
			return false
		case <-timeout.C:
			s.log.Info("The informer did not catch up with its watch; it lists its new shard range again", "resourceVersion", rv)
			return false
		case <-tick.C:
		}
	}
	return true
}

// notListed are copies of the objects in the informer's store that are
// not among items (copies: the informer's transform may run on them).
func (s *shardedListWatch) notListed(items []runtime.Object) []runtime.Object {
	listed := make(map[string]struct{}, len(items))
	for _, item := range items {
		if key, err := cache.MetaNamespaceKeyFunc(item); err == nil {
			listed[key] = struct{}{}
		}
	}
	var gone []runtime.Object
	for _, obj := range s.cache.indexer.List() {
		key, err := cache.MetaNamespaceKeyFunc(obj)
		if _, ok := listed[key]; ok || err != nil {
			continue
		}
		if o, ok := obj.(runtime.Object); ok {
			gone = append(gone, o.DeepCopyObject())
		}
	}
	return gone
}

// bookmark is an empty object of the informer's type at resourceVersion
// rv, for a Bookmark event.
func (s *shardedListWatch) bookmark(rv string) runtime.Object {
	obj := reflect.New(reflect.TypeOf(s.example).Elem()).Interface().(runtime.Object)
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(rv)
	}
	return obj
}
