package ring

import (
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// listedCache is what the ring knows of one informer's cache, registered
// by Informer: the part of the target it is known to hold up to date. A
// member admits a key only once every registered cache holds the key's
// range, so that a gained key is not reconciled on half a cache (its
// Deployment cached, its ReplicaSets not yet) nor on a stale one (without
// what the old owner wrote before it let go).
//
// Invariants, under the ring's mu: listed ⊆ the ring's target, and
// listed ⊆ the serving range as of the last extension, except for what a
// list started after that extension added; pending holds the keys of the
// last list's objects in its gained part (not in listed before it), and
// of the objects a move of the watch deletes there, that the informer
// has not notified yet, and when pending empties, listed becomes
// pendingTarget. Notifications come after the informer's indexer
// has the object, so the indexer then holds every object the list
// returned in the gained part.
type listedCache struct {
	indexer       cache.Indexer // the informer's: for Shards, and what a moved watch diffs its list against
	listed        Ranges
	pendingTarget Ranges
	pending       map[string]struct{}
}

// addCache registers an informer cache whose listed range gates Acquire.
func (r *Ring) addCache() *listedCache {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := &listedCache{}
	r.caches = append(r.caches, c)
	return c
}

// Shards reports whether informer is one Informer registered for r (by
// its indexer: an informer handed out by a generated accessor is wrapped
// anew at each call, but its indexer is the one the factory holds).
func (r *Ring) Shards(informer cache.SharedInformer) bool {
	i, ok := informer.(cache.SharedIndexInformer)
	if !ok || i == nil {
		return false
	}
	indexer := i.GetIndexer()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.caches {
		if c.indexer == indexer {
			return true
		}
	}
	return false
}

// listing records that c's informer listed target and will deliver items
// (already restricted to target, with any objects it deletes), before the
// informer sees them; began is the
// channel Target returned when the list began. If it has closed since
// (the target lost ranges, or the member began serving ranges gained
// after this list), the list adds nothing: the informer lists again.
func (r *Ring) listing(c *listedCache, target Ranges, began <-chan struct{}, items []runtime.Object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.listed = c.listed.Intersect(target)
	c.pending = nil
	select {
	case <-began:
		return
	default:
	}
	c.pending = map[string]struct{}{}
	for _, item := range items {
		h, err := ObjectHash(item)
		if err != nil || c.listed.Contains(h) {
			continue
		}
		if key, err := cache.MetaNamespaceKeyFunc(item); err == nil {
			c.pending[key] = struct{}{}
		}
	}
	c.pendingTarget = target
	if len(c.pending) == 0 {
		c.listed, c.pending = target, nil
	}
}

// notified records that c's informer has delivered obj, so its indexer
// holds (or has deleted) it.
func (r *Ring) notified(c *listedCache, obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := c.pending[key]; !ok {
		return
	}
	delete(c.pending, key)
	if len(c.pending) == 0 {
		c.listed, c.pending = c.pendingTarget, nil
	}
}

// forgetLocked makes every cache forget what it listed outside keep, and
// drops the lists still being delivered: what they would add is listed
// again.
func (r *Ring) forgetLocked(keep Ranges) {
	for _, c := range r.caches {
		c.listed = c.listed.Intersect(keep)
		c.pending, c.pendingTarget = nil, nil
	}
}

// listedLocked reports whether every registered cache holds hash h.
func (r *Ring) listedLocked(h uint64) bool {
	for _, c := range r.caches {
		if !c.listed.Contains(h) {
			return false
		}
	}
	return true
}

// trackListed makes informer's notifications clear c's pending keys.
func (r *Ring) trackListed(informer cache.SharedIndexInformer, c *listedCache) {
	notify := func(obj any) { r.notified(c, obj) }
	// AddEventHandler fails only on a stopped informer, which lists nothing.
	_, _ = informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    notify,
		UpdateFunc: func(_, obj any) { notify(obj) },
		DeleteFunc: notify,
	})
}

// listItems are list's objects.
func listItems(list runtime.Object) []runtime.Object {
	items, err := meta.ExtractList(list)
	if err != nil {
		return nil
	}
	return items
}
