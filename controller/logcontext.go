package controller

import (
	"context"

	"github.com/go-logr/logr"
)

// logrContextKey is the key logr.FromContext (and so klog.FromContext) asks
// a context for, found once by asking a probe. logr keeps its key type
// unexported; knowing the key lets a reconcile's context carry its logger
// without a context.WithValue layer and a boxed Logger per reconcile.
var logrContextKey = probeLogrContextKey()

type keyProbe struct {
	context.Context
	key any
}

func (p *keyProbe) Value(key any) any {
	p.key = key
	return nil
}

func probeLogrContextKey() any {
	p := &keyProbe{Context: context.Background()}
	_ = logr.FromContextOrDiscard(p)
	return p.key
}

// reconcileContext is the context of one reconcile: its parent plus a
// logger made on demand, in a single allocation.
type reconcileContext[K comparable] struct {
	context.Context
	sink reconcileLogSink[K]
}

// Value returns the reconcile's logger for logr's key, and asks the parent
// for any other key.
func (c *reconcileContext[K]) Value(key any) any {
	if key == logrContextKey {
		return logr.New(&c.sink)
	}
	return c.Context.Value(key)
}

// withReconcileLogger returns ctx carrying the logger of one reconcile of
// key: base with the values key and reconcileID (see reconcileLogSink).
func withReconcileLogger[K comparable](ctx context.Context, base logr.Logger, key K) (context.Context, logr.Logger) {
	sink := base.GetSink()
	if sink == nil {
		return logr.NewContext(ctx, base), base
	}
	if logrContextKey == nil {
		// logr no longer asks contexts the way the probe expects.
		log := logr.New(&reconcileLogSink[K]{base: sink, key: key})
		return logr.NewContext(ctx, log), log
	}
	c := &reconcileContext[K]{Context: ctx, sink: reconcileLogSink[K]{base: sink, key: key}}
	return c, logr.New(&c.sink)
}
