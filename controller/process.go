package controller

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// errReconcileTimeout is the cause of a reconcile context that hit
// Options.ReconcileTimeout, telling it apart from other cancellations.
var errReconcileTimeout = errors.New("reconcile timeout")

// processNextWorkItem is one turn of a worker, as in client-go's sample
// controller, in this order: take a key; admit it (Options.Gate); reconcile
// it in a context derived from ctx; classify the outcome once; tell the
// queue, the metrics, the log and the span; hand the key back at once or,
// if the reconcile recorded writes, once the informers have delivered them.
// It returns false once the queue is shut down and empty.
func (c *Controller[K]) processNextWorkItem(ctx context.Context, log logr.Logger) bool {
	key, priority, waited, shutdown := c.queue.GetWithWait()
	if shutdown {
		return false
	}
	held := false
	defer func() { // deferred, so that a panic hands the key back too
		if !held {
			c.queue.Done(key)
		}
	}()
	if c.stopping.Load() {
		return true // shutting down: leave the rest of the queue alone
	}
	release := func() {}
	if c.gate != nil {
		admitted, retryAfter, ok := c.gate.Admit(key)
		if !ok {
			c.notAdmitted(log, key, priority, retryAfter)
			return true
		}
		// Called before the key is handed back (Gate's contract), and
		// deferred too in case the reconcile panics; once either way.
		release = sync.OnceFunc(admitted)
		defer release()
	}
	c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	c.metrics.activeWorkers.Inc()
	defer c.metrics.activeWorkers.Dec()

	// Reconcile. The reconcile time is controller-runtime's: the reconcile
	// with its outcome applied, on the controller's clock.
	start := c.clock.Now()
	tracker := c.readYourWrites
	if c.ignoreWrites {
		tracker = nil
	}
	ctx, log, state := withReconcile(ctx, log, key, tracker)
	ctx, span := c.startSpan(ctx, key, string(state.id), priority, waited)
	// controller-runtime logs the start too: with the end's line, it shows
	// when each key was in a reconcile, e.g. that two replicas never
	// reconcile one key at once.
	log.V(5).Info("Reconciling")
	result, err := c.reconcile(ctx, key)

	// The outcome, once, for everyone who is told of it.
	o := outcomeOf(result, err)
	if result.Priority != nil {
		priority = *result.Priority
	}
	c.requeue(key, o, result.RequeueAfter, priority)
	c.metrics.count(o)
	logOutcome(log, o, result, err)
	endSpan(span, o, result, err)
	c.metrics.reconcileTime.Observe(c.clock.Since(start).Seconds())

	// Hand the key back. A requeue or retry waits behind it; if the
	// reconcile recorded writes, the key stays in flight until the
	// informers deliver them (see RecordWrite).
	release()
	if state.writes.Close() {
		held = c.readYourWrites.Hold(&state.writes, func() { c.queue.Done(key) })
	}
	return true
}

// requeue applies the result policy of Controller to the queue: a retry
// with backoff after an error (a panic is one), the key again after
// requeueAfter if asked, and otherwise its failure history forgotten.
func (c *Controller[K]) requeue(key K, o outcome, requeueAfter time.Duration, priority int) {
	switch o {
	case ResultError, ResultPanic:
		c.queue.AddWithOpts(workqueue.AddOpts{RateLimited: true, Priority: priority}, key)
	case ResultRequeueAfter:
		c.queue.Forget(key)
		c.queue.AddWithOpts(workqueue.AddOpts{After: requeueAfter, Priority: priority}, key)
	default: // success, terminal error
		c.queue.Forget(key)
	}
}

// logOutcome logs how a reconcile ended.
func logOutcome(log logr.Logger, o outcome, result Result, err error) {
	switch {
	case o == ResultTerminal:
		log.Error(err, "Reconciler error, not retrying")
	case err != nil && apierrors.IsConflict(err):
		// A 409 means another writer got there first: the key is retried
		// on a fresh cache like any error, but it is the expected race of
		// optimistic concurrency, not a fault, so it is logged quietly as
		// kube-controller-manager does.
		log.V(2).Info("Reconcile hit a conflict, retrying", "err", err.Error())
	case err != nil:
		log.Error(err, "Reconciler error")
	case o == ResultRequeueAfter:
		log.V(5).Info("Reconciled, requeueing", "after", result.RequeueAfter)
	default:
		log.V(5).Info("Reconciled")
	}
}

// notAdmitted puts back, or drops, a key the gate did not admit.
func (c *Controller[K]) notAdmitted(log logr.Logger, key K, priority int, retryAfter time.Duration) {
	if retryAfter > 0 {
		c.queue.AddWithOpts(workqueue.AddOpts{After: retryAfter, Priority: priority}, key)
		log.V(5).Info("Key not admitted yet, retrying", "key", key, "after", retryAfter)
		return
	}
	c.queue.Forget(key)
	log.V(5).Info("Key not admitted, dropping it", "key", key)
}

// ProcessNextReady reconciles one ready key as a worker would, applying the
// same result policy, and reports whether there was one. It does not block.
// It is meant for tests and other callers that drive a controller by hand,
// one key at a time, and must not be mixed with Run.
func (c *Controller[K]) ProcessNextReady(ctx context.Context) bool {
	if c.queue.Len() == 0 || c.queue.ShuttingDown() {
		return false
	}
	return c.processNextWorkItem(ctx, c.logger(ctx))
}

// reconcile calls the reconciler under the reconcile timeout, turning a
// panic into an error unless panics are to crash the process.
func (c *Controller[K]) reconcile(ctx context.Context, key K) (result Result, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		c.metrics.panics.Inc()
		if !c.recoverPanic {
			panic(r)
		}
		logr.FromContextOrDiscard(ctx).Error(nil, "Observed a panic in Reconcile", "panic", r, "stacktrace", string(debug.Stack()))
		result, err = Result{}, &errPanic{value: r}
	}()

	if c.reconcileTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, c.reconcileTimeout, errReconcileTimeout)
		defer cancel()
		defer func() {
			if errors.Is(context.Cause(ctx), errReconcileTimeout) {
				c.metrics.timeouts.Inc()
			}
		}()
	}
	return c.reconciler.Reconcile(ctx, key)
}
