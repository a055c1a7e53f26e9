package controller

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Defaults for the zero values of Options.
const (
	// DefaultCacheSyncTimeout bounds Run's wait for informers to sync.
	DefaultCacheSyncTimeout = 2 * time.Minute
	// DefaultShutdownTimeout bounds Run's wait for in-flight reconciles
	// after its context is cancelled.
	DefaultShutdownTimeout = 30 * time.Second
)

// DefaultDebounceMaxWaitFactor times Options.Debounce is the maximum wait
// of a debounced key when Options.DebounceMaxWait is zero.
const DefaultDebounceMaxWaitFactor = 10

// UnlimitedRetries, as Options.MaxRetries, retries a failing key for ever,
// as zero does. It is for wrappers whose zero MaxRetries means a limit of
// their own, such as package deployment's (15, upstream's): any negative
// value reaches the controller unchanged and means no limit.
const UnlimitedRetries = -1

// Options configure a Controller. The zero value is a working configuration:
// one worker, client-go's default controller rate limiter, no retry limit,
// panics recovered, leader election required, the logger of Run's context,
// no metrics.
type Options[K comparable] struct {
	// Workers is how many keys are reconciled at once (controller-runtime's
	// MaxConcurrentReconciles). Zero means 1.
	Workers int

	// Queue, when set, is the queue the controller reads instead of one of
	// its own. RateLimiter, Lane and MaxRetries configure the controller's
	// own queue, so New refuses them alongside Queue; the queue's metrics are
	// the queue's business. Tests use it to share or inspect a queue. Run
	// shuts it down on exit.
	Queue workqueue.Interface[K]

	// RateLimiter decides how long a failed key waits before its retry. Nil
	// means workqueue's default (per-key exponential backoff from 5ms to
	// 1000s, under an overall 10 qps, 100 burst bucket).
	RateLimiter workqueue.TypedRateLimiter[K]

	// Lane maps a key to its fairness lane, for example its namespace, so
	// that one busy lane cannot delay the keys of another. Nil means one lane.
	Lane func(K) string

	// MaxRetries drops a key after this many consecutive failed reconciles
	// (the drop is logged and counted by the queue). Zero, or a negative
	// value such as UnlimitedRetries, means never.
	MaxRetries int

	// CacheSyncTimeout bounds Run's wait for the watched informers and their
	// handlers to sync. Zero means DefaultCacheSyncTimeout.
	CacheSyncTimeout time.Duration

	// ReconcileTimeout, when positive, puts a deadline on each Reconcile's
	// context. A reconcile that hits it is counted in
	// controller_runtime_reconcile_timeouts_total; what happens next is up
	// to what it returns. Zero means no deadline.
	ReconcileTimeout time.Duration

	// ShutdownTimeout bounds how long Run waits, after its context is
	// cancelled, for in-flight reconciles to return; then it cancels their
	// contexts and returns an error. Zero means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration

	// CacheHoldTimeout bounds how long a key stays held after a reconcile
	// that recorded writes (RecordWrite, RecordDelete), waiting for the
	// informers to deliver them. After it the key proceeds on whatever the
	// cache holds, and the hold is counted in
	// controller_runtime_reconcile_cache_hold_timeouts_total. Zero means
	// DefaultCacheHoldTimeout. A reconciler that records nothing is never
	// held.
	CacheHoldTimeout time.Duration

	// DisableReadYourWrites makes the controller ignore the writes its
	// reconciles record: keys are handed back at once, as in client-go's
	// sample controller. Use it against API servers older than Kubernetes
	// 1.35, whose resourceVersions are not comparable, or to measure what
	// the hold buys.
	DisableReadYourWrites bool

	// DisablePanicRecovery lets a panicking Reconcile crash the process. By
	// default the panic is logged, counted, and the key retried with
	// backoff, as if Reconcile had returned an error.
	DisablePanicRecovery bool

	// NeedLeaderElection says whether the controller runs only on the
	// elected leader (the Manager's leader election). Nil means true;
	// ptr.To(false) runs it on every replica. controller-runtime's name and
	// polarity: the Manager's LeaderElection.Enabled, this option and the
	// Runnable's NeedLeaderElection method all say "leader election is on".
	NeedLeaderElection *bool

	// Gate, when set, admits each key before its reconcile (see Gate):
	// package controller/sharding's gates let each replica of a ring
	// reconcile only its shard's keys; sharding.ControllerOptions sets it
	// with NeedLeaderElection false and ReconcileTimeout. A Gate with a method
	// MaxReconcileTime() time.Duration (a ring's) needs a ReconcileTimeout
	// that is positive and below what it returns: New refuses the options
	// otherwise. Nil admits every key.
	Gate Gate[K]

	// Logger is the base of every log line and of each Reconcile's
	// contextual logger. The zero value, which is also what logr.Discard()
	// returns, means the logger of the context Run is given (under a
	// manager, its Options.Logger) and discards when that context carries
	// none. Then the queue's rare lines (keys dropped at MaxRetries) are
	// discarded too, the drops still counted.
	Logger logr.Logger

	// Registry receives the controller's metrics, under controller-runtime's
	// names, and the queue's. Nil means no metrics. Several controllers may
	// share one registry, with each other or with controller-runtime's
	// controllers (metrics.Registry): they feed the same collectors, their
	// series told apart by the "controller" label.
	Registry prometheus.Registerer

	// Debounce, when positive, holds back the keys of informer events
	// until a key has had no new event for this long, so that a burst of
	// events (a status written in several steps, a rollout touching an
	// object's children) gives one reconcile rather than several, as
	// kube-rs's Config::debounce does. DebounceMaxWait bounds the wait, so
	// that a key under a constant stream of events is still reconciled.
	// Zero, the default, queues each event's key at once.
	//
	// Only the keys of the handlers' adds are debounced (Watch's event
	// handlers, after their predicates, at the priority the event asked
	// for): requeues and retries that a reconcile asks for, adds with a
	// delay, and keys added to Queue directly go to the queue as they are.
	// A requeue is the reconciler's own decision with its own timing, and
	// a retry already waits for its backoff; what comes in bursts is
	// events. The queue's own merging of a key already queued only
	// collapses events that arrive before a worker takes the key; the
	// debounce lets the burst end first. The cost is latency: each
	// event's reconcile starts at least Debounce later. Measured on the
	// Deployment controller at 1,000 Deployments × 3 (scalebench, medians
	// of 3): 250 ms and 2 s saved 4.5 and 5 % of reconciles and no
	// measurable writes (within ±1.3 %), since the queue already merges
	// most of a burst, and made creating the Deployments 1.0 and 3.6 s
	// slower (of 58.5 s); it pays where events come faster than a
	// reconcile ends.
	Debounce time.Duration

	// DebounceMaxWait bounds how long Debounce holds back a key from the
	// first event of its burst. Zero means DefaultDebounceMaxWaitFactor
	// times Debounce. It needs Debounce, and must not be below it.
	DebounceMaxWait time.Duration

	// TracerProvider, when set, makes each reconcile an OpenTelemetry span
	// (see "Tracing" in the package documentation). Nil means the provider
	// of Run's context, which a manager with Options.TracerProvider sets,
	// and no tracing when that has none: then a reconcile costs nothing
	// more. The global provider (otel.GetTracerProvider) is not used.
	TracerProvider trace.TracerProvider

	// Clock drives the queue's delays, the reconcile and cache hold time
	// metrics and, if it has AfterFunc (clock.WithDelayedExecution, as
	// FakeClock does), the bound on cache holds. Nil
	// means the real clock; tests pass k8s.io/utils/clock/testing.FakeClock.
	// Contexts (ReconcileTimeout, ShutdownTimeout) always use real time.
	Clock clock.WithTicker
}

// validate reports the options that are invalid or would be ignored.
func (o Options[K]) validate() error {
	var errs []error
	if o.Workers < 0 {
		errs = append(errs, fmt.Errorf("Options.Workers must not be negative, got %d", o.Workers))
	}
	if o.Queue != nil {
		var ignored []string
		for _, f := range []struct {
			name string
			set  bool
		}{{"RateLimiter", o.RateLimiter != nil}, {"Lane", o.Lane != nil}, {"MaxRetries", o.MaxRetries != 0}} {
			if f.set {
				ignored = append(ignored, f.name)
			}
		}
		if len(ignored) > 0 {
			errs = append(errs, fmt.Errorf("with Options.Queue set, %s would have no effect: configure the queue instead",
				strings.Join(ignored, ", ")))
		}
	}
	for _, d := range []struct {
		name  string
		value time.Duration
	}{{"CacheSyncTimeout", o.CacheSyncTimeout}, {"ReconcileTimeout", o.ReconcileTimeout}, {"ShutdownTimeout", o.ShutdownTimeout}, {"CacheHoldTimeout", o.CacheHoldTimeout},
		{"Debounce", o.Debounce}, {"DebounceMaxWait", o.DebounceMaxWait}} {
		if d.value < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, got %s", d.name, d.value))
		}
	}
	if o.DebounceMaxWait > 0 && o.DebounceMaxWait < o.Debounce {
		errs = append(errs, fmt.Errorf("DebounceMaxWait %s must not be below Debounce %s", o.DebounceMaxWait, o.Debounce))
	}
	if o.DebounceMaxWait > 0 && o.Debounce <= 0 {
		errs = append(errs, errors.New("DebounceMaxWait needs Debounce"))
	}
	// A shard ring's gate hands a key to another replica a lease margin
	// after this one may have admitted it: a reconcile must end before.
	if b, ok := o.Gate.(interface{ MaxReconcileTime() time.Duration }); ok {
		if limit := b.MaxReconcileTime(); o.ReconcileTimeout <= 0 || o.ReconcileTimeout >= limit {
			errs = append(errs, fmt.Errorf("the Gate admits each key for at most %s, so ReconcileTimeout must be positive and below it, got %s (sharding.ControllerOptions sets it)", limit, o.ReconcileTimeout))
		}
	}
	return errors.Join(errs...)
}
