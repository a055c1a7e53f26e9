package workqueue

import (
	"github.com/go-logr/logr"
	clientgoworkqueue "k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

// TypedRateLimiter decides how long a key waits before a rate-limited add
// makes it ready. It is client-go's interface, so limiters are interchangeable.
type TypedRateLimiter[T comparable] = clientgoworkqueue.TypedRateLimiter[T]

// MetricsProvider creates the queue's metrics. It is client-go's interface;
// package prommetrics implements it for Prometheus.
type MetricsProvider = clientgoworkqueue.MetricsProvider

// Metric kinds a MetricsProvider returns (client-go's interfaces).
type (
	// GaugeMetric goes up and down.
	GaugeMetric = clientgoworkqueue.GaugeMetric
	// SettableGaugeMetric is set to a value.
	SettableGaugeMetric = clientgoworkqueue.SettableGaugeMetric
	// CounterMetric only goes up.
	CounterMetric = clientgoworkqueue.CounterMetric
	// HistogramMetric observes values.
	HistogramMetric = clientgoworkqueue.HistogramMetric
)

// DroppedMetricsProvider is optionally implemented by a MetricsProvider to
// count keys that a rate-limited add dropped because they reached
// Options.MaxRetries.
type DroppedMetricsProvider interface {
	NewDroppedMetric(name string) CounterMetric
}

// DefaultStarvationLimit is the starvation limit used when
// Options.StarvationLimit is zero.
const DefaultStarvationLimit = 1000

// Options configure a Queue. The zero value is a usable, unnamed queue with
// the default controller rate limiter and no metrics.
type Options[T comparable] struct {
	// Name labels the queue's metrics (label "name") and its log lines.
	Name string

	// RateLimiter decides the delay of rate-limited adds. Nil means
	// DefaultTypedControllerRateLimiter, running on Clock.
	RateLimiter TypedRateLimiter[T]

	// MetricsProvider creates the queue's metrics; nil means none.
	MetricsProvider MetricsProvider

	// Lane maps a key to its fairness lane (for example its namespace). Ready
	// keys of one priority are served round-robin over lanes, so a lane with
	// many keys cannot delay another lane's key. Nil puts every key in one
	// lane. Lane is called with the queue locked: it must be quick and must
	// not call the queue.
	Lane func(T) string

	// MaxRetries bounds rate-limited adds: once the rate limiter reports
	// MaxRetries requeues for a key, a rate-limited add drops the key instead
	// (it is logged, counted, and forgotten by the rate limiter). Zero means
	// unlimited.
	MaxRetries int

	// StarvationLimit is how many keys may be handed out while a lower
	// priority with ready keys is passed over (since it got its first key
	// or was last served as the top priority) before it counts as starving.
	// While any priority starves, one Get in four serves the one that has
	// starved longest, until it is empty or on top. Zero means
	// DefaultStarvationLimit; a negative value disables the guard (strict
	// priorities).
	StarvationLimit int

	// Clock drives delays and metrics. Nil means the real clock; tests pass a
	// k8s.io/utils/clock/testing.FakeClock.
	Clock clock.WithTicker

	// Logger receives the queue's rare log lines (dropped keys). The zero
	// value discards them.
	Logger logr.Logger
}
