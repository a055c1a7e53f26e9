package manager

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/leaderelection"
	clientmetrics "k8s.io/client-go/tools/metrics"
)

// client-go reports leader election and REST client metrics through
// process-wide hooks, each of which only its first caller sets
// (leaderelection.SetProvider, metrics.Register). The collectors below are
// therefore process-wide too, named and labelled as component-base's
// adapters name them in kube-controller-manager, so that its dashboards
// and alerts apply; each Manager that exposes them registers the same
// collectors on its registry. If another adapter (component-base's,
// controller-runtime's) took a hook first, the Manager logs it and leaves
// those metrics to that adapter's registry.

// leaderMetrics is client-go's leaderelection MetricsProvider for the
// process.
type leaderMetrics struct {
	master   *prometheus.GaugeVec
	slowpath *prometheus.CounterVec
	// installed is set when client-go first asks this provider for a
	// metric: it won SetProvider.
	installed atomic.Bool
}

var processLeaderMetrics = &leaderMetrics{
	master: prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
	}, []string{"name"}),
	slowpath: prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "leader_election_slowpath_total",
		Help: "Total number of slow path exercised in renewing leader leases. 'name' is the string used to identify the lease. Please make sure to group by name.",
	}, []string{"name"}),
}

// NewLeaderMetric implements leaderelection.MetricsProvider.
func (p *leaderMetrics) NewLeaderMetric() leaderelection.LeaderMetric {
	p.installed.Store(true)
	return leaderMetric{p}
}

type leaderMetric struct{ p *leaderMetrics }

func (m leaderMetric) On(name string)                { m.p.master.WithLabelValues(name).Set(1) }
func (m leaderMetric) Off(name string)               { m.p.master.WithLabelValues(name).Set(0) }
func (m leaderMetric) SlowpathExercised(name string) { m.p.slowpath.WithLabelValues(name).Inc() }

// installLeaderMetrics offers the provider to client-go; call it before
// creating a LeaderElector.
func installLeaderMetrics() { leaderelection.SetProvider(processLeaderMetrics) }

// registerLeaderElectionMetrics puts the process's leader election metrics
// on reg, once a LeaderElector has been created, and reports whether they
// are ctrlkit's.
func registerLeaderElectionMetrics(reg prometheus.Registerer) (bool, error) {
	if !processLeaderMetrics.installed.Load() {
		return false, nil
	}
	return true, registerShared(reg, processLeaderMetrics.master, processLeaderMetrics.slowpath)
}

// restClientMetrics adapts client-go's REST client hooks.
type restClientMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

var (
	processRESTClientMetrics = &restClientMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "rest_client_requests_total",
			Help: "Number of HTTP requests, partitioned by status code, method, and host.",
		}, []string{"code", "method", "host"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "rest_client_request_duration_seconds",
			Help:    "Request latency in seconds. Broken down by verb, and host.",
			Buckets: []float64{0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0},
		}, []string{"verb", "host"}),
	}
	restClientMetricsOnce sync.Once
	restClientMetricsOurs bool // set once: whether client-go reports to processRESTClientMetrics
)

func (m *restClientMetrics) Increment(_ context.Context, code, method, host string) {
	m.requests.WithLabelValues(code, method, host).Inc()
}

func (m *restClientMetrics) Observe(_ context.Context, verb string, u url.URL, latency time.Duration) {
	m.latency.WithLabelValues(verb, u.Host).Observe(latency.Seconds())
}

// registerRESTClientMetrics hooks the process's REST client metrics into
// client-go, once, puts them on reg and reports whether they are ctrlkit's.
func registerRESTClientMetrics(reg prometheus.Registerer) (bool, error) {
	restClientMetricsOnce.Do(func() {
		clientmetrics.Register(clientmetrics.RegisterOpts{
			RequestResult:  processRESTClientMetrics,
			RequestLatency: processRESTClientMetrics,
		})
		// Register is a no-op after anybody's first call.
		ours, _ := clientmetrics.RequestResult.(*restClientMetrics)
		restClientMetricsOurs = ours == processRESTClientMetrics
	})
	if !restClientMetricsOurs {
		return false, nil
	}
	return true, registerShared(reg, processRESTClientMetrics.requests, processRESTClientMetrics.latency)
}

// registerShared registers process-wide collectors on reg, accepting that
// another Manager on the same registry registered them already.
func registerShared(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		err := reg.Register(c)
		var dup prometheus.AlreadyRegisteredError
		if errors.As(err, &dup) && dup.ExistingCollector == c {
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}
