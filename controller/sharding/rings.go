package sharding

import (
	"runtime"
	"sync"
	"weak"

	"k8s.io/client-go/tools/cache"
)

// rings are the rings that shard an informer, held weakly: RingOf asks
// each whether it made the informer (by its indexer: an informer handed
// out by a generated accessor is wrapped anew at each call, but its
// indexer is the one the factory holds). A ring that nothing else
// references is forgotten, with its informers, so that a process that
// makes many managers and factories (tests do) keeps none of their caches.
var rings = struct {
	sync.Mutex
	live map[weak.Pointer[Ring]]struct{}
}{live: map[weak.Pointer[Ring]]struct{}{}}

// RingOf is the ring whose range informer lists and watches, if Informer
// (or Shard) made it, or nil. Package builder refuses to shard a
// controller over informers of another ring, or of none.
func RingOf(informer cache.SharedIndexInformer) *Ring {
	if informer == nil {
		return nil
	}
	indexer := informer.GetIndexer()
	rings.Lock()
	live := make([]*Ring, 0, len(rings.live))
	for w := range rings.live {
		if r := w.Value(); r != nil {
			live = append(live, r)
		}
	}
	rings.Unlock()
	for _, r := range live {
		if r.shards(indexer) {
			return r
		}
	}
	return nil
}

// RingOfInformer is RingOf for a cache.SharedInformer, nil unless it is a
// SharedIndexInformer (as client-go's and package typed's are).
func RingOfInformer(informer cache.SharedInformer) *Ring {
	if i, ok := informer.(cache.SharedIndexInformer); ok {
		return RingOf(i)
	}
	return nil
}

// remember adds ring to rings, once; it leaves them when it is collected.
func remember(ring *Ring) {
	w := weak.Make(ring)
	rings.Lock()
	defer rings.Unlock()
	if _, ok := rings.live[w]; ok {
		return
	}
	rings.live[w] = struct{}{}
	runtime.AddCleanup(ring, func(w weak.Pointer[Ring]) {
		rings.Lock()
		defer rings.Unlock()
		delete(rings.live, w)
	}, w)
}
