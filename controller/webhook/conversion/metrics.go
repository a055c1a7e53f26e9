package conversion

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/workqueue/prommetrics"
)

// metrics count and time conversions per kind and version pair, named in
// the style of controller-runtime's webhook metrics. The panics counter is
// controller-runtime's own (it has no other conversion metric), so that a
// registry shared with it feeds one series.
type metrics struct {
	conversions *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	panics      *prometheus.CounterVec
}

// Label names of the conversion metrics. Only registered kinds and
// versions become label values: a request naming others is counted by the
// webhook server's metrics alone, so that a client cannot make series.
var pairLabels = []string{"kind", "from_version", "to_version"}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	var errs []error
	m := &metrics{
		conversions: register(reg, &errs, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_conversion_webhook_conversions_total",
			Help: "Total number of objects converted by conversion webhooks, by kind, version pair and result.",
		}, []string{"kind", "from_version", "to_version", "result"})),
		latency: register(reg, &errs, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "controller_runtime_conversion_webhook_latency_seconds",
			Help: "Histogram of the latency of converting one object, by kind and version pair.",
			// A conversion copies fields: tens of microseconds, not the
			// milliseconds of the default buckets.
			Buckets: prometheus.ExponentialBuckets(10e-6, 4, 9),
		}, pairLabels)),
		panics: register(reg, &errs, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_conversion_webhook_panics_total",
			Help: "Total number of conversion webhook panics",
		}, []string{})),
	}
	m.panics.WithLabelValues().Add(0)
	return m, errors.Join(errs...)
}

// register registers c on reg, or reuses the same collector registered
// there before (by another handler, or by controller-runtime).
func register[C prometheus.Collector](reg prometheus.Registerer, errs *[]error, c C) C {
	c, err := prommetrics.Register(reg, c)
	*errs = append(*errs, err)
	return c
}

// Results of a conversion, the values of the label "result".
const (
	resultSuccess = "success"
	resultFailure = "failure"
)
