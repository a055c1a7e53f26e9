package controller

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/controller/internal/readyourwrites"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Controller feeds the keys that informer events map to through a work
// queue into a Reconciler, with a pool of workers. Build it with New,
// connect informers with Watch, then call Run.
//
// The controller guarantees that a key is never reconciled by two workers at
// once, that a key whose reconcile recorded writes (RecordWrite) is not
// reconciled again until its informers have delivered them (or
// Options.CacheHoldTimeout passed), and applies this policy to each Reconcile's outcome:
//
//   - nil error, zero Result: the key's failure history is forgotten;
//   - nil error, Result.RequeueAfter > 0: forgotten, and added again after
//     that delay;
//   - an error: added again with the rate limiter's backoff (the queue drops
//     it after Options.MaxRetries consecutive failures, if set);
//   - a TerminalError: forgotten, logged and counted, not retried;
//   - a panic: logged, counted, and retried like an error (unless
//     Options.DisablePanicRecovery).
//
// A requeue or retry is queued at Result.Priority if set, else at the
// priority the key was served at.
type Controller[K comparable] struct {
	name       string
	reconciler Reconciler[K]
	queue      workqueue.Interface[K]
	log        logr.Logger // Options.Logger; zero: the logger of Run's context
	clock      clock.PassiveClock
	metrics    *metrics

	workers            int
	cacheSyncTimeout   time.Duration
	reconcileTimeout   time.Duration
	shutdownTimeout    time.Duration
	recoverPanic       bool
	needLeaderElection bool
	gate               Gate[K] // nil: every key is admitted

	mu      sync.Mutex
	watches []watch
	started bool
	stopped bool // Run has removed its handlers: no Watch any more

	synced   atomic.Bool
	stopping atomic.Bool
	inFlight atomic.Int32 // reconciles running

	// readYourWrites tracks the watched informers, and holds keys until
	// they deliver the writes recorded by the keys' reconciles.
	readYourWrites *readyourwrites.Tracker
	ignoreWrites   bool // Options.DisableReadYourWrites
	delayClock     clock.WithDelayedExecution

	// tracer is nil unless tracing: Options.TracerProvider's, or set by Run
	// from its context's (a manager's).
	tracer atomic.Pointer[trace.Tracer]

	debounce *debouncer[K] // nil: events go straight to the queue
}

// watch is one informer the controller listens to.
type watch struct {
	informer     cache.SharedInformer
	registration cache.ResourceEventHandlerRegistration
}

// New returns a controller named name (unique among the controllers of one
// process manager; it labels logs and metrics) that reconciles keys with r.
// It fails on invalid options, or if Options.Registry holds other
// collectors under the metrics' names.
func New[K comparable](name string, r Reconciler[K], opts Options[K]) (*Controller[K], error) {
	var errs []error
	if name == "" {
		errs = append(errs, errors.New("name must not be empty"))
	}
	if r == nil {
		errs = append(errs, errors.New("reconciler must not be nil"))
	}
	if err := errors.Join(append(errs, opts.validate())...); err != nil {
		return nil, fmt.Errorf("controller %q: %w", name, err)
	}

	c := &Controller[K]{
		name:               name,
		reconciler:         r,
		queue:              opts.Queue,
		log:                opts.Logger,
		clock:              opts.Clock,
		workers:            max(opts.Workers, 1),
		cacheSyncTimeout:   orDefault(opts.CacheSyncTimeout, DefaultCacheSyncTimeout),
		reconcileTimeout:   opts.ReconcileTimeout,
		shutdownTimeout:    orDefault(opts.ShutdownTimeout, DefaultShutdownTimeout),
		recoverPanic:       !opts.DisablePanicRecovery,
		needLeaderElection: opts.NeedLeaderElection == nil || *opts.NeedLeaderElection,
		gate:               opts.Gate,
		ignoreWrites:       opts.DisableReadYourWrites,
		delayClock:         clock.RealClock{},
	}
	if opts.Clock == nil {
		c.clock = clock.RealClock{}
	}
	if dc, ok := opts.Clock.(clock.WithDelayedExecution); ok {
		c.delayClock = dc // else holds are bounded in real time
	}
	if c.log.GetSink() != nil {
		c.log = c.log.WithValues("controller", name)
	}
	if opts.TracerProvider != nil {
		c.useTracerProvider(opts.TracerProvider)
	}
	var err error
	if c.metrics, err = newMetrics(opts.Registry, name); err != nil {
		return nil, fmt.Errorf("controller %q: metrics: %w", name, err)
	}
	c.readYourWrites = &readyourwrites.Tracker{
		Timeout:  orDefault(opts.CacheHoldTimeout, DefaultCacheHoldTimeout),
		Clock:    c.clock,
		Timers:   c.delayClock,
		Held:     c.metrics.heldKeys,
		HoldTime: c.metrics.holdTime,
		Timeouts: c.metrics.holdTimeouts,
	}
	if c.queue == nil {
		if c.queue, err = newQueue(name, opts, c.log); err != nil {
			return nil, fmt.Errorf("controller %q: queue: %w", name, err)
		}
	}
	if opts.Debounce > 0 {
		maxWait := opts.DebounceMaxWait
		if maxWait == 0 {
			maxWait = DefaultDebounceMaxWaitFactor * opts.Debounce
		}
		c.debounce = newDebouncer[K](c.queue, c.delayClock, opts.Debounce, maxWait)
	}
	return c, nil
}

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

// HasSynced reports whether the controller is working: Run has seen every
// watched informer and handler sync, and its workers are taking keys. It is
// the definition manager.SyncReporter asks for; use it as a readiness check.
func (c *Controller[K]) HasSynced() bool { return c.synced.Load() }

// WatchedInformers returns the informers Watch registered handlers on, in
// the order of the Watch calls. A manager checks that something starts
// each of them (see manager.InformerWatcher).
func (c *Controller[K]) WatchedInformers() []cache.SharedInformer {
	c.mu.Lock()
	defer c.mu.Unlock()
	informers := make([]cache.SharedInformer, len(c.watches))
	for i, w := range c.watches {
		informers[i] = w.informer
	}
	return informers
}

// NeedLeaderElection reports whether the controller must only run on the
// elected leader: Options.NeedLeaderElection, true unless set to false.
func (c *Controller[K]) NeedLeaderElection() bool { return c.needLeaderElection }

// Watch registers h on informer, so that the informer's events add keys to
// the controller's queue, and makes Run wait for the informer and the
// handler to sync. Any cache.SharedInformer works: from a typed, dynamic or
// metadata-only factory, or a custom one. Starting the informer is the
// caller's job (usually the factory's Start).
//
// Called while Run runs, Watch adds the watch at once: the informer's
// events, its initial list first, reach the queue as soon as it runs, but
// the controller, already working, does not wait for it to sync
// (HasSynced stays true). Run removes the handler when it returns; after
// that, Watch fails.
func (c *Controller[K]) Watch(informer cache.SharedInformer, h handler.Handler[K]) error {
	if informer == nil {
		return fmt.Errorf("controller %q: Watch: informer must not be nil", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return fmt.Errorf("controller %q: Watch after Run returned", c.name)
	}
	var opts cache.HandlerOptions
	if c.log.GetSink() != nil {
		opts.Logger = &c.log // else the informer's own
	}
	var events handler.Queue[K] = c.queue
	if c.debounce != nil {
		events = c.debounce
	}
	// The controller's one handler on the informer also tells the
	// read-your-writes tracker what was delivered (see RecordWrite).
	reg, err := informer.AddEventHandlerWithOptions(c.readYourWrites.Track(informer, h.EventHandler(events)), opts)
	if err != nil {
		return fmt.Errorf("controller %q: Watch: %w", c.name, err)
	}
	c.watches = append(c.watches, watch{informer: informer, registration: reg})
	return nil
}
