package controller

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/workqueue/prommetrics"
)

// resultRequeue is the value of controller_runtime_reconcile_total's
// "result" label that controller-runtime counts immediate requeues under.
// It is kept at zero: Result has no immediate requeue. The other values are
// the outcomes' (see ResultSuccess).
const resultRequeue = "requeue"

// reconcileTimeBuckets are controller-runtime's, so dashboards carry over.
var reconcileTimeBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45,
	0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25,
	30, 40, 50, 60}

// metrics are one controller's series, bound to its label at New. Without
// a registry they are registered on a private one that nobody gathers, so
// that the controller has one code path.
type metrics struct {
	success, errored, requeueAfter prometheus.Counter
	errors, terminal, panics       prometheus.Counter
	timeouts                       prometheus.Counter
	reconcileTime                  prometheus.Observer
	maxWorkers, activeWorkers      prometheus.Gauge
	heldKeys                       prometheus.Gauge
	holdTime                       prometheus.Observer
	holdTimeouts                   prometheus.Counter
}

// count counts a reconcile's outcome. Panics are counted where they are
// recovered (or not), in reconcile.
func (m *metrics) count(o outcome) {
	switch o {
	case ResultSuccess:
		m.success.Inc()
	case ResultRequeueAfter:
		m.requeueAfter.Inc()
	default:
		m.errored.Inc()
		m.errors.Inc()
		if o == ResultTerminal {
			m.terminal.Inc()
		}
	}
}

// holdTimeBuckets span a fast informer's milliseconds to the default
// Options.CacheHoldTimeout.
var holdTimeBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// newMetrics registers controller-runtime's controller metrics on reg,
// descriptor for descriptor, or reuses the collectors registered there
// before (by another controller, or by controller-runtime).
func newMetrics(reg prometheus.Registerer, controller string) (*metrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	var errs []error
	counter := func(name, help string, labels ...string) *prometheus.CounterVec {
		vec, err := prommetrics.Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels))
		errs = append(errs, err)
		return vec
	}
	gauge := func(name, help string) prometheus.Gauge {
		vec, err := prommetrics.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"controller"}))
		errs = append(errs, err)
		return vec.WithLabelValues(controller)
	}
	total := counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller", "controller", "result")
	times, err := prommetrics.Register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:                            "controller_runtime_reconcile_time_seconds",
		Help:                            "Length of time per reconciliation per controller",
		Buckets:                         reconcileTimeBuckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}, []string{"controller"}))
	errs = append(errs, err)
	holdTimes, err := prommetrics.Register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "controller_runtime_reconcile_cache_hold_duration_seconds",
		Help:    "Length of time a key was held after a reconcile that recorded writes, until its informers delivered them, per controller",
		Buckets: holdTimeBuckets,
	}, []string{"controller"}))
	errs = append(errs, err)
	m := &metrics{
		success:       total.WithLabelValues(controller, ResultSuccess),
		errored:       total.WithLabelValues(controller, ResultError),
		requeueAfter:  total.WithLabelValues(controller, ResultRequeueAfter),
		errors:        counter("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller", "controller").WithLabelValues(controller),
		terminal:      counter("controller_runtime_terminal_reconcile_errors_total", "Total number of terminal reconciliation errors per controller", "controller").WithLabelValues(controller),
		panics:        counter("controller_runtime_reconcile_panics_total", "Total number of reconciliation panics per controller", "controller").WithLabelValues(controller),
		timeouts:      counter("controller_runtime_reconcile_timeouts_total", "Total number of reconciliation timeouts per controller", "controller").WithLabelValues(controller),
		reconcileTime: times.WithLabelValues(controller),
		maxWorkers:    gauge("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller"),
		activeWorkers: gauge("controller_runtime_active_workers", "Number of currently used workers per controller"),
		heldKeys:      gauge("controller_runtime_reconcile_cache_hold_keys", "Number of keys held until their informers deliver the writes of their last reconcile, per controller"),
		holdTime:      holdTimes.WithLabelValues(controller),
		holdTimeouts:  counter("controller_runtime_reconcile_cache_hold_timeouts_total", "Total number of cache holds that reached the bound before their informers delivered the writes, per controller", "controller").WithLabelValues(controller),
	}
	// Touch the requeue series so every result value is exported from the
	// start, as controller-runtime does.
	total.WithLabelValues(controller, resultRequeue)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}
