package webhook

import (
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/ctrlkit/ctrlkit/workqueue/prommetrics"
)

// metrics are controller-runtime's webhook metrics, names and help alike,
// so that a registry shared with controller-runtime feeds one series and
// its dashboards carry over.
type metrics struct {
	latency  *prometheus.HistogramVec
	total    *prometheus.CounterVec
	inFlight *prometheus.GaugeVec
	panics   prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	var errs []error
	m := &metrics{
		latency: register(reg, &errs, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "controller_runtime_webhook_latency_seconds",
			Help: "Histogram of the latency of processing admission requests",
		}, []string{"webhook"})),
		total: register(reg, &errs, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "controller_runtime_webhook_requests_total",
			Help: "Total number of admission requests by HTTP status code.",
		}, []string{"webhook", "code"})),
		inFlight: register(reg, &errs, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "controller_runtime_webhook_requests_in_flight",
			Help: "Current number of admission requests being served.",
		}, []string{"webhook"})),
		panics: register(reg, &errs, prometheus.NewCounter(prometheus.CounterOpts{
			Name: "controller_runtime_webhook_panics_total",
			Help: "Total number of webhook panics",
		})),
	}
	return m, errors.Join(errs...)
}

// register registers c on reg, or reuses the same collector registered
// there before (by another Server, or by controller-runtime).
func register[C prometheus.Collector](reg prometheus.Registerer, errs *[]error, c C) C {
	c, err := prommetrics.Register(reg, c)
	*errs = append(*errs, err)
	return c
}

// instrument counts, times and gauges the requests to h under path.
func (m *metrics) instrument(path string, h http.Handler) http.Handler {
	labels := prometheus.Labels{"webhook": path}
	total := m.total.MustCurryWith(labels)
	// The codes a webhook answers with, so that a rate is 0 before the
	// first failure rather than missing.
	total.WithLabelValues("200")
	total.WithLabelValues("500")
	return promhttp.InstrumentHandlerInFlight(m.inFlight.With(labels),
		promhttp.InstrumentHandlerDuration(m.latency.MustCurryWith(labels),
			promhttp.InstrumentHandlerCounter(total, h)))
}
