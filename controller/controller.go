package controller

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Controller feeds the keys that informer events map to through a work
// queue into a Reconciler, with a pool of workers. Build it with New,
// connect informers with Watch, then call Run.
//
// The controller guarantees that a key is never reconciled by two workers at
// once, and applies this policy to each Reconcile's outcome:
//
//   - nil error, zero Result: the key's failure history is forgotten;
//   - nil error, Result.RequeueAfter > 0: forgotten, and added again after
//     that delay;
//   - an error: added again with the rate limiter's backoff (the queue drops
//     it after Options.MaxRetries consecutive failures, if set);
//   - a TerminalError: forgotten, logged and counted, not retried;
//   - a panic: logged, counted, and retried like an error (unless
//     Options.DisablePanicRecovery).
type Controller[K comparable] struct {
	name       string
	reconciler Reconciler[K]
	queue      workqueue.Interface[K]
	// worker is the queue when it is ctrlkit's own: workers then finish a
	// key and take the next in one call (DoneAndGet).
	worker *workqueue.Queue[K]
	// queueTimed is set when the controller built the queue with metrics:
	// the queue times each key in flight, and the reconcile time is the
	// queue's time from hand-out to Done, with no clock reads of its own.
	// ownTiming is set when there are metrics and the queue does not time
	// keys: the controller reads its clock around each reconcile.
	queueTimed, ownTiming bool
	log                   logr.Logger
	clock                 clock.PassiveClock
	epoch                 time.Time // the clock's time at New, see now
	metrics               *metrics  // nil: no metrics

	workers            int
	cacheSyncTimeout   time.Duration
	reconcileTimeout   time.Duration
	shutdownTimeout    time.Duration
	recoverPanic       bool
	needLeaderElection bool

	mu      sync.Mutex
	watches []watch
	started bool

	synced   atomic.Bool
	stopping atomic.Bool
	// inFlight counts the reconciles running. It is allocated on its own:
	// the metrics registry keeps it (as the active workers) and must not
	// keep the whole controller alive.
	inFlight *atomic.Int32
}

// watch is one informer the controller listens to.
type watch struct {
	informer     cache.SharedInformer
	registration cache.ResourceEventHandlerRegistration
}

// New returns a controller named name (unique among the controllers of one
// process manager; it labels logs and metrics) that reconciles keys with r.
func New[K comparable](name string, r Reconciler[K], opts Options[K]) (*Controller[K], error) {
	var errs []error
	if name == "" {
		errs = append(errs, errors.New("name must not be empty"))
	}
	if r == nil {
		errs = append(errs, errors.New("reconciler must not be nil"))
	}
	if opts.Workers < 0 {
		errs = append(errs, fmt.Errorf("Workers must not be negative, got %d", opts.Workers))
	}
	if opts.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("MaxRetries must not be negative, got %d", opts.MaxRetries))
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"CacheSyncTimeout", opts.CacheSyncTimeout}, {"ReconcileTimeout", opts.ReconcileTimeout}, {"ShutdownTimeout", opts.ShutdownTimeout}} {
		if d.value < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %s", d.name, d.value))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("controller %q: %w", name, err)
	}

	c := &Controller[K]{
		name:               name,
		reconciler:         r,
		log:                opts.Logger,
		clock:              opts.Clock,
		workers:            max(opts.Workers, 1),
		inFlight:           new(atomic.Int32),
		cacheSyncTimeout:   orDefault(opts.CacheSyncTimeout, DefaultCacheSyncTimeout),
		reconcileTimeout:   opts.ReconcileTimeout,
		shutdownTimeout:    orDefault(opts.ShutdownTimeout, DefaultShutdownTimeout),
		recoverPanic:       !opts.DisablePanicRecovery,
		needLeaderElection: !opts.NoLeaderElection,
	}
	if c.log.GetSink() == nil {
		c.log = klog.Background()
	}
	c.log = c.log.WithValues("controller", name)
	if opts.Clock == nil {
		c.clock = clock.RealClock{}
	}
	c.epoch = c.clock.Now()
	if opts.Registry != nil {
		m, err := newMetrics(opts.Registry, name, c.inFlight)
		if err != nil {
			return nil, fmt.Errorf("controller %q: metrics: %w", name, err)
		}
		c.metrics = m
	}
	c.queue = opts.Queue
	if c.queue == nil {
		q, err := newQueue(name, opts, c.log)
		if err != nil {
			return nil, fmt.Errorf("controller %q: queue: %w", name, err)
		}
		c.queue = q
		c.queueTimed = c.metrics != nil
	}
	c.ownTiming = c.metrics != nil && !c.queueTimed
	c.worker, _ = c.queue.(*workqueue.Queue[K])
	return c, nil
}

// now returns the controller's clock in nanoseconds since New. On the real
// clock this reads only the monotonic clock, which is cheaper than Now.
func (c *Controller[K]) now() int64 { return int64(c.clock.Since(c.epoch)) }

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// Name returns the controller's name.
func (c *Controller[K]) Name() string { return c.name }

// Queue returns the controller's work queue. Adding keys to it is the way to
// trigger reconciles from sources other than informers.
func (c *Controller[K]) Queue() workqueue.Interface[K] { return c.queue }

// HasSynced reports whether Run has seen every watched informer and handler
// sync and is processing keys. Use it as a readiness check.
func (c *Controller[K]) HasSynced() bool { return c.synced.Load() }

// NeedLeaderElection reports whether the controller must only run on the
// elected leader: true unless Options.NoLeaderElection.
func (c *Controller[K]) NeedLeaderElection() bool { return c.needLeaderElection }

// Watch registers h on informer, so that the informer's events add keys to
// the controller's queue, and makes Run wait for the informer and the
// handler to sync. Any cache.SharedInformer works: from a typed, dynamic or
// metadata-only factory, or a custom one. Starting the informer is the
// caller's job (usually the factory's Start). Watch must be called before Run.
func (c *Controller[K]) Watch(informer cache.SharedInformer, h handler.Handler[K]) error {
	if informer == nil {
		return fmt.Errorf("controller %q: Watch: informer must not be nil", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		return fmt.Errorf("controller %q: Watch after Run", c.name)
	}
	reg, err := informer.AddEventHandlerWithOptions(h.EventHandler(c.queue), cache.HandlerOptions{Logger: &c.log})
	if err != nil {
		return fmt.Errorf("controller %q: Watch: %w", c.name, err)
	}
	c.watches = append(c.watches, watch{informer: informer, registration: reg})
	return nil
}
