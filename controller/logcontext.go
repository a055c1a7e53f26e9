package controller

import (
	"context"
	"time"

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

// reconcileParent is what the reconciles of one worker share: the context
// they derive from and the controller's log sink. Keeping it out of each
// reconcile's context keeps that context small.
type reconcileParent[K comparable] struct {
	ctx  context.Context
	base logr.LogSink // nil: the controller's logger discards
}

// newReconcileParent returns the parent of reconciles in ctx.
func newReconcileParent[K comparable](ctx context.Context, log logr.Logger) *reconcileParent[K] {
	return &reconcileParent[K]{ctx: ctx, base: log.GetSink()}
}

// newContext returns a fresh context for a reconcile of key.
func (p *reconcileParent[K]) newContext(key K) *reconcileContext[K] {
	c := &reconcileContext[K]{}
	c.parent, c.key = p, key
	return c
}

// reconcileContext is the context of one reconcile: its parent plus a
// logger made on demand. It is its logger's sink too, so both take a single
// allocation.
type reconcileContext[K comparable] struct {
	reconcileLogSink[K]
}

var _ context.Context = (*reconcileContext[string])(nil)

// Deadline returns the parent's deadline.
func (c *reconcileContext[K]) Deadline() (time.Time, bool) { return c.parent.ctx.Deadline() }

// Done returns the parent's Done channel.
func (c *reconcileContext[K]) Done() <-chan struct{} { return c.parent.ctx.Done() }

// Err returns the parent's error.
func (c *reconcileContext[K]) Err() error { return c.parent.ctx.Err() }

// Value returns the reconcile's logger for logr's key, and asks the parent
// for any other key.
func (c *reconcileContext[K]) Value(key any) any {
	if key == logrContextKey {
		return logr.New(&c.reconcileLogSink)
	}
	return c.parent.ctx.Value(key)
}

// withReconcileLogger returns parent's context carrying the logger of one
// reconcile of key: the controller's with the values key and reconcileID
// (see reconcileLogSink).
func withReconcileLogger[K comparable](parent *reconcileParent[K], key K) (context.Context, logr.Logger) {
	if parent.base == nil {
		log := logr.New(nil)
		return logr.NewContext(parent.ctx, log), log
	}
	if logrContextKey == nil {
		// logr no longer asks contexts the way the probe expects.
		log := logr.New(&reconcileLogSink[K]{parent: parent, key: key})
		return logr.NewContext(parent.ctx, log), log
	}
	c := parent.newContext(key)
	return c, logr.New(&c.reconcileLogSink)
}
