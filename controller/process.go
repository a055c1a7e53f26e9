package controller

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// errReconcileTimeout is the cause of a reconcile context that hit
// Options.ReconcileTimeout, telling it apart from other cancellations.
var errReconcileTimeout = errors.New("reconcile timeout")

// work is one worker: it reconciles keys until the queue is shut down and
// empty.
func (c *Controller[K]) work(parent *reconcileParent[K]) {
	q := c.worker
	if q == nil {
		for c.processNext(parent) {
		}
		return
	}
	// On ctrlkit's queue, while keys are waiting, each key's Done and the
	// next Get take the queue's lock once between them, and the queue times
	// the reconcile with one clock read.
	for {
		key, priority, shutdown := q.GetWithPriority()
		if shutdown {
			return
		}
		for ok := true; ok; {
			if c.stopping.Load() {
				// Shutting down: leave the rest of the queue alone.
				_, _, key, priority, ok = q.DoneAndGetReady(key)
				continue
			}
			start := c.reconcileStart()
			c.reconcileAndApply(parent, key, priority)
			c.reconcileEnd(start)
			var elapsed time.Duration
			var timed bool
			elapsed, timed, key, priority, ok = q.DoneAndGetReady(key)
			c.observeQueueTimed(elapsed, timed)
		}
	}
}

// processNext takes one key, reconciles it in a context derived from
// parent's and applies the result. It returns false once the queue is shut
// down and empty.
func (c *Controller[K]) processNext(parent *reconcileParent[K]) bool {
	key, priority, shutdown := c.queue.GetWithPriority()
	if shutdown {
		return false
	}
	if c.stopping.Load() {
		// Shutting down: leave the rest of the queue alone.
		c.queue.Done(key)
		return true
	}
	defer c.finish(key, c.reconcileStart())
	c.reconcileAndApply(parent, key, priority)
	return true
}

// finish records how long key's reconcile took, from start or from the
// queue's own timing, and hands key back to the queue.
func (c *Controller[K]) finish(key K, start int64) {
	c.reconcileEnd(start)
	if !c.queueTimed {
		c.queue.Done(key)
		return
	}
	c.observeQueueTimed(c.worker.DoneTimed(key))
}

// The reconcile time is measured as controller-runtime measures it: the
// reconcile with its result applied, up to Done. A queue the controller
// built with metrics times each key in flight already (queueTimed), so the
// controller takes that; otherwise, with metrics, it reads its own clock
// around the reconcile (ownTiming).

// reconcileStart returns the controller's clock if it times reconciles
// itself, else 0.
func (c *Controller[K]) reconcileStart() int64 {
	if !c.ownTiming {
		return 0
	}
	return c.now()
}

// reconcileEnd records a reconcile that began at start, if the controller
// times reconciles itself.
func (c *Controller[K]) reconcileEnd(start int64) {
	if c.ownTiming {
		c.metrics.reconcileTime.Observe(float64(c.now()-start) / 1e9)
	}
}

// observeQueueTimed records a reconcile the queue timed (DoneTimed's or
// DoneAndGetReady's results), if the controller relies on the queue's
// timing.
func (c *Controller[K]) observeQueueTimed(elapsed time.Duration, timed bool) {
	if timed && c.queueTimed {
		c.metrics.reconcileTime.Observe(elapsed.Seconds())
	}
}

// ProcessNextReady reconciles one ready key as a worker would, applying the
// same result policy, and reports whether there was one. It does not block.
// It is meant for tests and other callers that drive a controller by hand,
// one key at a time, and must not be mixed with Run.
func (c *Controller[K]) ProcessNextReady(ctx context.Context) bool {
	if c.queue.Len() == 0 || c.queue.ShuttingDown() {
		return false
	}
	return c.processNext(newReconcileParent[K](ctx, c.log))
}

// reconcileAndApply runs one Reconcile and applies the error policy.
func (c *Controller[K]) reconcileAndApply(parent *reconcileParent[K], key K, priority int) {
	c.inFlight.Add(1)
	defer c.inFlight.Add(-1)

	ctx, log := withReconcileLogger(parent, key)
	result, err := c.reconcile(ctx, key)

	switch {
	case err != nil && IsTerminal(err):
		c.queue.Forget(key)
		c.countError(true)
		log.Error(err, "Reconciler error, not retrying")
	case err != nil:
		c.queue.AddWithOpts(workqueue.AddOpts{RateLimited: true, Priority: priority}, key)
		c.countError(false)
		if apierrors.IsConflict(err) {
			// A 409 means another writer got there first: the key is retried
			// on a fresh cache like any error, but it is the expected race of
			// optimistic concurrency, not a fault, so it is logged quietly as
			// kube-controller-manager does.
			log.V(2).Info("Reconcile hit a conflict, retrying", "err", err.Error())
		} else {
			log.Error(err, "Reconciler error")
		}
	case result.RequeueAfter > 0:
		c.queue.Forget(key)
		c.queue.AddWithOpts(workqueue.AddOpts{After: result.RequeueAfter, Priority: priority}, key)
		if c.metrics != nil {
			c.metrics.requeueAfter.Inc()
		}
		log.V(5).Info("Reconciled, requeueing", "after", result.RequeueAfter)
	default:
		c.queue.Forget(key)
		if c.metrics != nil {
			c.metrics.success.Inc()
		}
		log.V(5).Info("Reconciled")
	}
}

func (c *Controller[K]) countError(terminal bool) {
	if c.metrics == nil {
		return
	}
	c.metrics.errored.Inc()
	c.metrics.errors.Inc()
	if terminal {
		c.metrics.terminal.Inc()
	}
}

// reconcile calls the reconciler under the reconcile timeout, turning a
// panic into an error unless panics are to crash the process.
func (c *Controller[K]) reconcile(ctx context.Context, key K) (result Result, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if c.metrics != nil {
			c.metrics.panics.Inc()
		}
		if !c.recoverPanic {
			panic(r)
		}
		logr.FromContextOrDiscard(ctx).Error(nil, "Observed a panic in Reconcile", "panic", r, "stacktrace", string(debug.Stack()))
		result, err = Result{}, fmt.Errorf("panic in Reconcile: %v [recovered]", r)
	}()

	if c.reconcileTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.reconcileTimeout, errReconcileTimeout)
		defer cancel()
		defer func() {
			if errors.Is(context.Cause(ctx), errReconcileTimeout) && c.metrics != nil {
				c.metrics.timeouts.Inc()
			}
		}()
	}
	return c.reconciler.Reconcile(ctx, key)
}
