package sharding

import (
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/workqueue/prommetrics"
)

// ringMetrics are one ring member's series, labelled with the ring's name.
// Without a registry they go to a private one nobody gathers.
type ringMetrics struct {
	members         prometheus.Gauge
	rangeFraction   prometheus.Gauge
	servingFraction prometheus.Gauge
	rangeInfo       *prometheus.GaugeVec
	keysOwned       prometheus.Gauge
	handovers       *prometheus.CounterVec
	handoverTime    *prometheus.HistogramVec
	ring            string
	reg             prometheus.Registerer
}

func newRingMetrics(reg prometheus.Registerer, ring string) (*ringMetrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	var errs []error
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		vec, err := prommetrics.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, append([]string{"ring"}, labels...)))
		errs = append(errs, err)
		return vec
	}
	m := &ringMetrics{ring: ring, reg: reg}
	m.members = gauge("ctrlkit_shard_ring_members", "Live members of the ring, as this member sees it.").WithLabelValues(ring)
	m.rangeFraction = gauge("ctrlkit_shard_range_fraction", "Share of the hash space assigned to this member (its target range).").WithLabelValues(ring)
	m.servingFraction = gauge("ctrlkit_shard_serving_fraction", "Share of the hash space this member hands out keys of now.").WithLabelValues(ring)
	m.rangeInfo = gauge("ctrlkit_shard_range_info", "This member's target range, as labels start (inclusive) and end (exclusive); value 1.", "start", "end")
	m.keysOwned = gauge("ctrlkit_shard_keys_owned", "Distinct shard keys (namespaces, or names of cluster-scoped objects) this member has reconciled in its current range.").WithLabelValues(ring)
	handovers, err := prommetrics.Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "ctrlkit_shard_handovers_total",
		Help: "Completed handovers: direction gained (a range started serving) or lost (a lost range drained and acknowledged).",
	}, []string{"ring", "direction"}))
	errs = append(errs, err)
	times, err := prommetrics.Register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "ctrlkit_shard_handover_duration_seconds",
		Help:    "Time from a ring change to the end of its handover on this member, by direction (gained, lost).",
		Buckets: []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120},
	}, []string{"ring", "direction"}))
	errs = append(errs, err)
	m.handovers, m.handoverTime = handovers, times
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return m, nil
}

// cachedObjects makes the size of store, a sharded informer's cache of
// resource, the gauge ctrlkit_shard_cached_objects: it shows that the
// cache holds only the member's range (a test can compare it with the
// objects whose KeyHash is in the range).
func (m *ringMetrics) cachedObjects(resource string, store cache.Store, log logr.Logger) {
	g := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "ctrlkit_shard_cached_objects",
		Help:        "Objects in a sharded informer's cache, by resource: those of this member's target range.",
		ConstLabels: prometheus.Labels{"ring": m.ring, "resource": resource},
	}, func() float64 { return float64(len(store.ListKeys())) })
	if err := m.reg.Register(g); err != nil {
		// A second informer of one resource on one ring: the first one's
		// gauge stays; the ring works without it.
		log.Error(err, "Not registering the cached objects gauge", "resource", resource)
	}
}

// handover counts one completed handover.
func (m *ringMetrics) handover(direction string, d time.Duration) {
	m.handovers.WithLabelValues(m.ring, direction).Inc()
	m.handoverTime.WithLabelValues(m.ring, direction).Observe(d.Seconds())
}

// update sets the gauges from r's state.
func (m *ringMetrics) update(r *Ring) {
	r.mu.Lock()
	members, target := len(r.view), r.target
	serving := r.serving
	if r.fencedLocked(r.clock.Now()) || r.left {
		serving = EmptyRange
	}
	r.mu.Unlock()
	m.members.Set(float64(members))
	m.rangeFraction.Set(target.Fraction())
	m.servingFraction.Set(serving.Fraction())
	m.rangeInfo.DeletePartialMatch(prometheus.Labels{"ring": m.ring})
	if !target.Empty() {
		start, end := target.bounds()
		m.rangeInfo.WithLabelValues(m.ring, start, end).Set(1)
	}
}
