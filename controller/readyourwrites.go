package controller

import (
	"context"
	"sync"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// RecordWrite records that the reconcile whose context ctx is wrote obj:
// obj is the object the API server returned from a create, update or patch
// (of the object or its status), carrying the resourceVersion the write
// produced. informer is the informer, passed to Watch, whose cache the
// reconciler reads that kind from.
//
// When the reconcile returns, the controller keeps its key from every
// worker until informer has delivered obj at that resourceVersion or a
// newer one (or has delivered its deletion), at most
// Options.CacheHoldTimeout. Events for the key that arrive meanwhile
// coalesce as usual. So the next reconcile of the key reads a cache that
// holds its own writes. See "Reading your own writes" in the package
// documentation.
//
// RecordWrite is safe to call from goroutines the reconcile starts, until
// it returns; later calls, calls outside a reconcile, and objects without a
// resourceVersion are ignored. A write against an informer the controller
// does not watch cannot be observed: it is logged and ignored.
func RecordWrite(ctx context.Context, informer cache.SharedInformer, obj metav1.Object) {
	state := reconcileFromContext(ctx)
	if state == nil || obj == nil || obj.GetResourceVersion() == "" {
		return
	}
	state.record(ctx, informer, expectation{
		name:            cache.MetaObjectToName(obj),
		resourceVersion: obj.GetResourceVersion(),
	})
}

// RecordDelete records that the reconcile whose context ctx is deleted obj
// (the object as the reconcile read it: its namespace, name and, if set,
// UID count), whose kind informer serves. The controller holds the key as
// for RecordWrite, until informer has delivered the deletion or no longer
// holds an object of that name and UID.
func RecordDelete(ctx context.Context, informer cache.SharedInformer, obj metav1.Object) {
	state := reconcileFromContext(ctx)
	if state == nil || obj == nil {
		return
	}
	state.record(ctx, informer, expectation{
		name:    cache.MetaObjectToName(obj),
		uid:     obj.GetUID(),
		deleted: true,
	})
}

// expectation is what an informer's cache must reach for one recorded
// write to count as observed.
type expectation struct {
	name cache.ObjectName
	// resourceVersion: the cache must hold name at this version or newer
	// (or have delivered its deletion). Empty for a delete.
	resourceVersion string
	// deleted: the cache must have delivered the deletion of name, or hold
	// no object of that name with uid (any uid if empty).
	deleted bool
	uid     types.UID
}

// writeLog collects one reconcile's recorded writes until the reconcile
// returns and the controller closes it. Writes after closing are dropped:
// the key may already be with another worker.
type writeLog struct {
	mu     sync.Mutex
	closed bool
	waits  []*wait
}

// closedLog marks a reconcileState whose reconcile has returned.
var closedLog = &writeLog{closed: true}

// record adds want to the reconcile's write log, creating the log on the
// first write, so that a reconcile that records nothing allocates nothing.
func (s *reconcileState) record(ctx context.Context, informer cache.SharedInformer, want expectation) {
	if s.watched == nil {
		return // Options.DisableReadYourWrites
	}
	progress := s.watched.progressOf(informer)
	if progress == nil {
		logr.FromContextOrDiscard(ctx).Error(nil, "Write recorded against an informer the controller does not watch; not waiting for it",
			"object", want.name.String())
		return
	}
	log := s.writes.Load()
	if log == nil {
		s.writes.CompareAndSwap(nil, &writeLog{})
		log = s.writes.Load()
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if !log.closed {
		log.waits = append(log.waits, &wait{progress: progress, want: want})
	}
}

// closeWrites ends recording and returns what was recorded: for a
// reconcile that recorded nothing, one atomic swap.
func (s *reconcileState) closeWrites() []*wait {
	log := s.writes.Swap(closedLog)
	if log == nil {
		return nil
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	log.closed = true
	return log.waits
}
