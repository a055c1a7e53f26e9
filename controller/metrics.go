package controller

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Values of the "result" label of controller_runtime_reconcile_total, as
// controller-runtime uses them. "requeue" is kept at zero: Result has no
// immediate requeue.
const (
	resultSuccess      = "success"
	resultError        = "error"
	resultRequeueAfter = "requeue_after"
	resultRequeue      = "requeue"
)

// reconcileTimeBuckets are controller-runtime's, so dashboards carry over.
var reconcileTimeBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45,
	0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25,
	30, 40, 50, 60}

// metrics are one controller's series, bound to its label at New so the
// hot path does no label lookups.
type metrics struct {
	success, errored, requeueAfter prometheus.Counter
	errors, terminal, panics       prometheus.Counter
	timeouts                       prometheus.Counter
	reconcileTime                  prometheus.Observer
	maxWorkers                     prometheus.Gauge
}

// newMetrics registers the controller metrics on reg, reusing the
// collectors another controller already registered there. running is the
// controller's count of reconciles in progress, exported as its active
// workers.
func newMetrics(reg prometheus.Registerer, controller string, running *atomic.Int32) (*metrics, error) {
	counter := func(name, help string, labels ...string) (*prometheus.CounterVec, error) {
		return register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels))
	}
	gauge := func(name, help string) (*prometheus.GaugeVec, error) {
		return register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, []string{"controller"}))
	}
	total, err1 := counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller", "controller", "result")
	errs, err2 := counter("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller", "controller")
	terminal, err3 := counter("controller_runtime_terminal_reconcile_errors_total", "Total number of terminal reconciliation errors per controller", "controller")
	panics, err4 := counter("controller_runtime_reconcile_panics_total", "Total number of reconciliation panics per controller", "controller")
	timeouts, err5 := counter("controller_runtime_reconcile_timeouts_total", "Total number of reconciliation timeouts per controller", "controller")
	maxWorkers, err6 := gauge("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller")
	active, err7 := register(reg, newActiveWorkers())
	times, err8 := register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:                            "controller_runtime_reconcile_time_seconds",
		Help:                            "Length of time per reconciliation per controller",
		Buckets:                         reconcileTimeBuckets,
		NativeHistogramBucketFactor:     1.1,
		NativeHistogramMaxBucketNumber:  100,
		NativeHistogramMinResetDuration: time.Hour,
	}, []string{"controller"}))
	if err := errors.Join(err1, err2, err3, err4, err5, err6, err7, err8); err != nil {
		return nil, err
	}
	m := &metrics{
		success:       total.WithLabelValues(controller, resultSuccess),
		errored:       total.WithLabelValues(controller, resultError),
		requeueAfter:  total.WithLabelValues(controller, resultRequeueAfter),
		errors:        errs.WithLabelValues(controller),
		terminal:      terminal.WithLabelValues(controller),
		panics:        panics.WithLabelValues(controller),
		timeouts:      timeouts.WithLabelValues(controller),
		reconcileTime: times.WithLabelValues(controller),
		maxWorkers:    maxWorkers.WithLabelValues(controller),
	}
	active.track(controller, running)
	// Touch the requeue series so every result value is exported from the
	// start, as controller-runtime does.
	total.WithLabelValues(controller, resultRequeue)
	return m, nil
}

// register registers c on reg, or returns the equal collector registered
// there before.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}
