package controller

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	if obj == nil || obj.GetResourceVersion() == "" {
		return
	}
	record(ctx, informer, obj, false)
}

// RecordDelete records that the reconcile whose context ctx is deleted obj
// (the object as the reconcile read it: its namespace, name and, if set,
// UID count), whose kind informer serves. The controller holds the key as
// for RecordWrite, until informer has delivered the deletion or no longer
// holds an object of that name and UID.
func RecordDelete(ctx context.Context, informer cache.SharedInformer, obj metav1.Object) {
	if obj == nil {
		return
	}
	record(ctx, informer, obj, true)
}

func record(ctx context.Context, informer cache.SharedInformer, obj metav1.Object, deleted bool) {
	state := reconcileFromContext(ctx)
	if state == nil || state.tracker == nil { // outside a reconcile, or Options.DisableReadYourWrites
		return
	}
	if !state.tracker.Record(&state.writes, informer, obj, deleted) {
		logr.FromContextOrDiscard(ctx).Error(nil, "Write recorded against an informer the controller does not watch; not waiting for it",
			"object", cache.MetaObjectToName(obj).String())
	}
}

// DefaultCacheHoldTimeout is the default of Options.CacheHoldTimeout.
const DefaultCacheHoldTimeout = 5 * time.Second
