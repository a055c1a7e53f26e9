package controller

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// activeWorkers exports controller_runtime_active_workers from each
// controller's count of running reconciles, read when the registry is
// scraped. A gauge moved up and down around every reconcile would cost two
// compare-and-swap loops per reconcile for a value that is read a few times
// a minute. One collector serves every controller on a registry; a
// controller registered under a name already there replaces the earlier
// one, as a new series would.
type activeWorkers struct {
	desc *prometheus.Desc

	mu       sync.Mutex
	counters map[string]*atomic.Int32 // controller name → reconciles running
}

func newActiveWorkers() *activeWorkers {
	return &activeWorkers{
		desc: prometheus.NewDesc("controller_runtime_active_workers",
			"Number of currently used workers per controller", []string{"controller"}, nil),
		counters: make(map[string]*atomic.Int32),
	}
}

// track exports running as the active workers of controller.
func (a *activeWorkers) track(controller string, running *atomic.Int32) {
	a.mu.Lock()
	a.counters[controller] = running
	a.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (a *activeWorkers) Describe(ch chan<- *prometheus.Desc) { ch <- a.desc }

// Collect implements prometheus.Collector.
func (a *activeWorkers) Collect(ch chan<- prometheus.Metric) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for name, running := range a.counters {
		ch <- prometheus.MustNewConstMetric(a.desc, prometheus.GaugeValue, float64(running.Load()), name)
	}
}
