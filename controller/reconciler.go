package controller

import (
	"context"
	"time"
)

// Reconciler brings the world in line with the desired state of one key.
//
// Reconcile is called with each key at most once at a time. Returning a nil
// error and a zero Result forgets the key's failure history. A non-nil error
// requeues the key with backoff, unless it is wrapped by TerminalError.
type Reconciler[K comparable] interface {
	Reconcile(ctx context.Context, key K) (Result, error)
}

// ReconcilerFunc adapts a function to a Reconciler.
type ReconcilerFunc[K comparable] func(ctx context.Context, key K) (Result, error)

// Reconcile calls f(ctx, key).
func (f ReconcilerFunc[K]) Reconcile(ctx context.Context, key K) (Result, error) {
	return f(ctx, key)
}

// Result tells the controller what to do with a key after a successful
// Reconcile.
type Result struct {
	// RequeueAfter, when positive, processes the key again after this long.
	// It is ignored when Reconcile returns an error.
	RequeueAfter time.Duration

	// Priority, when set, is the queue priority of the key's next turn if
	// this reconcile puts it back: after RequeueAfter, or after an error's
	// backoff (it is read with errors too, as controller-runtime v0.23+
	// reads it). Higher is served first; workqueue.PriorityNormal (0) is
	// what events get, workqueue.PriorityLow the initial list and resyncs.
	// Nil keeps the priority the key was served at. A higher priority
	// cannot starve lower ones: once a ready lower level has been passed
	// over by the queue's starvation limit of hand-outs
	// (workqueue.DefaultStarvationLimit, 1000), one hand-out in four
	// serves it until it is empty (see workqueue.Options.StarvationLimit).
	// A key already waiting keeps the higher of its priorities.
	Priority *int
}

// IsZero reports whether r asks for nothing.
func (r Result) IsZero() bool { return r == Result{} }
