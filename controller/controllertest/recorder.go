package controllertest

import (
	"context"
	"sync"

	"github.com/ctrlkit/ctrlkit/controller"
)

// Call is one Reconcile seen by a Recorder.
type Call[K comparable] struct {
	Key    K
	Result controller.Result
	Err    error
}

// Recorder is a Reconciler that records every call, then delegates to
// Reconciler (or, if that is nil, succeeds).
type Recorder[K comparable] struct {
	// Reconciler does the work; nil means every call succeeds.
	Reconciler controller.Reconciler[K]

	mu    sync.Mutex
	calls []Call[K]
}

// Reconcile records the call and its outcome.
func (r *Recorder[K]) Reconcile(ctx context.Context, key K) (controller.Result, error) {
	var (
		result controller.Result
		err    error
	)
	if r.Reconciler != nil {
		result, err = r.Reconciler.Reconcile(ctx, key)
	}
	r.mu.Lock()
	r.calls = append(r.calls, Call[K]{Key: key, Result: result, Err: err})
	r.mu.Unlock()
	return result, err
}

// Calls returns the calls so far, in the order they returned.
func (r *Recorder[K]) Calls() []Call[K] {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call[K](nil), r.calls...)
}

// Keys returns the keys of the calls so far, in order.
func (r *Recorder[K]) Keys() []K {
	r.mu.Lock()
	defer r.mu.Unlock()
	keys := make([]K, len(r.calls))
	for i, c := range r.calls {
		keys[i] = c.Key
	}
	return keys
}

// Reset forgets the calls so far.
func (r *Recorder[K]) Reset() {
	r.mu.Lock()
	r.calls = nil
	r.mu.Unlock()
}
