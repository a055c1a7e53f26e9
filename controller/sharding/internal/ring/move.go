package ring

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
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
// for each listed object (the informer makes it an update of what its
// store holds, as for a relist), and a Bookmark at the list's
// resourceVersion, from which it then watches the new target. It
// reports false once the watch has ended: stopped, or, where it cannot
// move (a plain ListWatch, which cannot see its informer's store; a
// store that does not catch up; a failed list), after an expired error
// event.
func (w *shardWatch) moveTo() bool {
	s := w.lw
	if !s.canMove() || !s.awaitStore(w.ctx, w.stop, w.lastRV) {
		w.send(expired())
		return false
	}
	events, listRV, err := w.relist()
	if err != nil {
		s.log.Info("Could not move a watch to the new shard range; the informer lists it again", "err", err)
		w.send(expired())
		return false
	}
	for _, ev := range events {
		if !w.send(ev) {
			return false
		}
	}
	opts := w.opts
	opts.ResourceVersion = listRV
	s.restrict(&opts, w.target)
	inner, err := s.lw.WatchWithContext(w.ctx, opts)
	if err != nil {
		// The watch ends; the reflector watches again from the bookmark.
		s.log.V(2).Info("Watching the new shard range failed", "err", err)
		return false
	}
	w.inner = inner
	return true
}

// relist lists the ring's target, makes it the watch's, and returns the
// events that turn the informer's store into the list, and the list's
// resourceVersion.
func (w *shardWatch) relist() ([]watch.Event, string, error) {
	s := w.lw
	list, target, changed, err := s.list(w.ctx, metav1.ListOptions{})
	if err != nil {
		return nil, "", err
	}
	m, err := meta.ListAccessor(list)
	if err != nil {
		return nil, "", err
	}
	listRV := m.GetResourceVersion()
	if listRV == "" {
		return nil, "", fmt.Errorf("sharding: a list of %T has no resourceVersion to watch from", list)
	}
	// Each item its own allocation, as the reflector's own list takes
	// them: one cached item would otherwise keep the list's whole array.
	items, err := meta.ExtractListWithAlloc(list)
	if err != nil {
		return nil, "", err
	}
	deleted, err := s.notListed(items)
	if err != nil {
		return nil, "", err
	}
	s.ring.listing(s.cache, target, changed, append(deleted, items...))
	s.listed(target, changed)
	w.target, w.changed = target, changed

	events := make([]watch.Event, 0, len(deleted)+len(items)+1)
	for _, obj := range deleted {
		events = append(events, watch.Event{Type: watch.Deleted, Object: obj})
	}
	for _, obj := range items {
		events = append(events, watch.Event{Type: watch.Added, Object: obj})
	}
	return append(events, s.bookmark(listRV)), listRV, nil
}

// canMove reports whether the watch can move in place: Informer made it
// (and so gave it the informer's store and type), and the store tracks
// the resourceVersion it has reached (client-go's AtomicFIFO, on by
// default).
func (s *shardedListWatch) canMove() bool {
	return s.cache != nil && features.FeatureGates().Enabled(features.AtomicFIFO)
}

// awaitStore waits until the informer's store has reached resourceVersion
// rv, that of the last event the watch passed on: the informer applies
// events in order, so the store then holds all of them. It reports false
// if rv is unknown, the store does not get there within
// storeCatchUpTimeout, or the watch ends. It polls: a store tells no one
// when it moves on, and a handler would not see a Bookmark.
func (s *shardedListWatch) awaitStore(ctx context.Context, stop <-chan struct{}, rv string) bool {
	if rv == "" {
		return false
	}
	err := wait.PollUntilContextTimeout(ctx, 5*time.Millisecond, storeCatchUpTimeout, true, func(context.Context) (bool, error) {
		select {
		case <-stop:
			return false, errWatchStopped
		default:
			return s.cache.indexer.LastStoreSyncResourceVersion() == rv, nil
		}
	})
	if wait.Interrupted(err) && ctx.Err() == nil {
		s.log.Info("The informer did not catch up with its watch; it lists its new shard range again", "resourceVersion", rv)
	}
	return err == nil
}

// errWatchStopped ends awaitStore when the reflector stops the watch.
var errWatchStopped = errors.New("sharding: the watch was stopped")

// notListed are copies of the objects in the informer's store that are
// not among items (copies: the informer's transform may run on them). It
// fails on an object of another type than the informer's, which a
// transform may have made: the reflector would drop its deletion.
func (s *shardedListWatch) notListed(items []runtime.Object) ([]runtime.Object, error) {
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
		o, ok := obj.(runtime.Object)
		if !ok || reflect.TypeOf(o) != reflect.TypeOf(s.example) {
			return nil, fmt.Errorf("sharding: the cache holds a %T, not a %T as the informer's watch does", obj, s.example)
		}
		gone = append(gone, o.DeepCopyObject())
	}
	return gone, nil
}

// bookmark is a Bookmark event at resourceVersion rv. Its object is a
// copy of the informer's example object: the reflector drops an event
// whose object is not of the informer's type (and, unstructured, kind).
func (s *shardedListWatch) bookmark(rv string) watch.Event {
	obj := s.example.DeepCopyObject()
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(rv)
	}
	return watch.Event{Type: watch.Bookmark, Object: obj}
}
