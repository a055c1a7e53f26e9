package controller

import (
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
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

// Options configure a Controller. The zero value is a working configuration:
// one worker, client-go's default controller rate limiter, no retry limit,
// panics recovered, leader election required, klog's logger, no metrics.
type Options[K comparable] struct {
	// Workers is how many keys are reconciled at once. Zero means 1.
	Workers int

	// Queue, when set, is the queue the controller reads; RateLimiter,
	// Lane, MaxRetries and the queue metrics are then the queue's business.
	// Tests use it to share or inspect a queue. Run shuts it down on exit.
	Queue workqueue.Interface[K]

	// RateLimiter decides how long a failed key waits before its retry. Nil
	// means workqueue's default (per-key exponential backoff from 5ms to
	// 1000s, under an overall 10 qps, 100 burst bucket).
	RateLimiter workqueue.TypedRateLimiter[K]

	// Lane maps a key to its fairness lane, for example its namespace, so
	// that one busy lane cannot delay the keys of another. Nil means one lane.
	Lane func(K) string

	// MaxRetries drops a key after this many consecutive failed reconciles
	// (the drop is logged and counted by the queue). Zero means never.
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

	// DisablePanicRecovery lets a panicking Reconcile crash the process. By
	// default the panic is logged, counted, and the key retried with
	// backoff, as if Reconcile had returned an error.
	DisablePanicRecovery bool

	// NoLeaderElection lets the controller run on every replica rather than
	// only on the elected leader (see NeedLeaderElection).
	NoLeaderElection bool

	// Logger is the base of every log line and of each Reconcile's
	// contextual logger. The zero value means klog.Background().
	Logger logr.Logger

	// Registry receives the controller's metrics, under controller-runtime's
	// names, and the queue's. Nil means no metrics. Several controllers may
	// share one registry; their series differ by the "controller" label.
	Registry prometheus.Registerer

	// Clock drives the queue's delays and the reconcile time metric. Nil
	// means the real clock; tests pass k8s.io/utils/clock/testing.FakeClock.
	// Contexts (ReconcileTimeout, ShutdownTimeout) always use real time.
	Clock clock.WithTicker
}
