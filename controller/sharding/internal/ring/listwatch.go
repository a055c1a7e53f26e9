package ring

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// Scope tells ListWatch how a resource's objects are sharded.
type Scope int

const (
	// Namespaced objects are sharded by namespace, and the API server can
	// select them with a ShardSelector.
	Namespaced Scope = iota
	// ClusterScoped objects are sharded by name. The API server cannot
	// select by name, so they are listed and watched whole and filtered on
	// the client side only: the cache still holds only the range.
	ClusterScoped
)

// ListWatch restricts lw to ring's target ranges (see the package
// documentation): each list and watch carries the target's ShardSelector
// (for Namespaced resources) and keeps, on the client side, only the
// objects in the target, so that the cache holds only the range whether
// or not the API server honoured the selector (a list it honoured carries
// ListMeta.ShardInfo). A list waits until the ring has a target, and is a
// consistent read. When the informers must list again (see Ring.Target),
// the watch ends with "resource version expired", so that the reflector
// lists the new range and its store drops what was lost (an informer
// registered by Informer moves its watch in place instead, without the
// reflector's relist backoff: see package sharding's DESIGN.md).
//
// The result does not support client-go's streaming lists (WatchList): the
// reflector lists and then watches, so that every list is checked.
func ListWatch(lw cache.ListerWatcherWithContext, ring *Ring, scope Scope) cache.ListerWatcherWithContext {
	return newListWatch(lw, ring, scope)
}

func newListWatch(lw cache.ListerWatcherWithContext, ring *Ring, scope Scope) *shardedListWatch {
	return &shardedListWatch{lw: lw, ring: ring, scope: scope, log: ring.log}
}

// shardedListWatch is used by one reflector, which lists and watches in
// turn: last is the target its last list was restricted to.
type shardedListWatch struct {
	lw      cache.ListerWatcherWithContext
	ring    *Ring
	scope   Scope
	log     logr.Logger
	cache   *listedCache   // nil: the ring does not wait for this cache
	example runtime.Object // an object of the informer's type, if Informer made it

	mu          sync.Mutex
	last        Ranges
	lastChanged <-chan struct{}
	warned      bool
}

// IsWatchListSemanticsUnSupported tells the reflector to list, not to
// stream the initial list over a watch.
func (s *shardedListWatch) IsWatchListSemanticsUnSupported() bool { return true }

func (s *shardedListWatch) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	list, target, changed, err := s.list(ctx, opts)
	if err != nil {
		return nil, err
	}
	if s.cache != nil {
		s.ring.listing(s.cache, target, changed, listItems(list))
	}
	s.listed(target, changed)
	return list, nil
}

// list lists the ring's target, once it has one, restricted to it.
func (s *shardedListWatch) list(ctx context.Context, opts metav1.ListOptions) (runtime.Object, Ranges, <-chan struct{}, error) {
	target, changed, err := s.waitForTarget(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	s.restrict(&opts, target)
	// A consistent read, whatever the reflector asked for: the ring
	// admits a gained range's keys on this list, which must hold what the
	// old owner wrote before it let go ("0" or a resourceVersion may be
	// answered from an API server's cache that has not seen it yet).
	opts.ResourceVersion, opts.ResourceVersionMatch = "", ""
	list, err := s.lw.ListWithContext(ctx, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.filterList(list, target); err != nil {
		return nil, nil, nil, err
	}
	return list, target, changed, nil
}

// listed records the target of the last list, which watches keep to.
func (s *shardedListWatch) listed(target Ranges, changed <-chan struct{}) {
	s.mu.Lock()
	s.last, s.lastChanged = target, changed
	s.mu.Unlock()
}

func (s *shardedListWatch) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	target, changed := s.last, s.lastChanged
	s.mu.Unlock()
	if changed == nil {
		// A watch before any list: restrict it to the current target.
		var err error
		if target, changed, err = s.waitForTarget(ctx); err != nil {
			return nil, err
		}
	}
	s.restrict(&opts, target)
	w, err := s.lw.WatchWithContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	return newShardWatch(ctx, s, w, target, changed, opts), nil
}

// List and Watch serve callers that know only cache.ListerWatcher.
func (s *shardedListWatch) List(opts metav1.ListOptions) (runtime.Object, error) {
	return s.ListWithContext(context.Background(), opts)
}

func (s *shardedListWatch) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	return s.WatchWithContext(context.Background(), opts)
}

// waitForTarget returns the ring's target once it has one.
func (s *shardedListWatch) waitForTarget(ctx context.Context) (Ranges, <-chan struct{}, error) {
	for {
		target, changed := s.ring.Target()
		if !target.Empty() {
			return target, changed, nil
		}
		select {
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		case <-changed:
		}
	}
}

func (s *shardedListWatch) restrict(opts *metav1.ListOptions, target Ranges) {
	if s.scope == Namespaced {
		opts.ShardSelector = target.Selector(NamespaceField).String()
	}
}

// filterList keeps the list's items in target. A list the API server
// filtered passes unchanged; one it did not is logged once.
func (s *shardedListWatch) filterList(list runtime.Object, target Ranges) error {
	if s.scope == Namespaced {
		// A typed list is its own ListInterface (meta.ListAccessor returns
		// it, not its ListMeta): ShardInfo is reached through GetListMeta.
		if la, ok := list.(metav1.ListMetaAccessor); ok {
			if m, ok := la.GetListMeta().(*metav1.ListMeta); ok && m.ShardInfo == nil {
				s.warnOnce(fmt.Sprintf("%T", list))
			}
		}
	}
	items, err := meta.ExtractListWithAlloc(list)
	if err != nil {
		return fmt.Errorf("sharding: %w", err)
	}
	kept := items[:0]
	for _, item := range items {
		if h, err := ObjectHash(item); err == nil && target.Contains(h) {
			kept = append(kept, item)
		}
	}
	if len(kept) == len(items) {
		return nil
	}
	return meta.SetList(list, kept)
}

func (s *shardedListWatch) warnOnce(kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.warned {
		s.warned = true
		s.log.Info("The API server did not honour the shard selector (no ShardInfo; is the ShardedListAndWatch feature gate on?): filtering on the client side", "list", kind)
	}
}
