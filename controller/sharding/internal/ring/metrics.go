package ring

import (
	"slices"
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
	share           prometheus.Gauge
	imbalance       prometheus.Gauge
	largestKey      prometheus.Gauge
	rebalances      prometheus.Counter
	movedWeight     prometheus.Counter
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
	m.rangeFraction = gauge("ctrlkit_shard_range_fraction", "Share of the hash space assigned to this member (its target ranges).").WithLabelValues(ring)
	m.servingFraction = gauge("ctrlkit_shard_serving_fraction", "Share of the hash space this member hands out keys of now.").WithLabelValues(ring)
	m.rangeInfo = gauge("ctrlkit_shard_range_info", "This member's target ranges, one series each, as labels start (inclusive) and end (exclusive); value 1.", "start", "end")
	m.keysOwned = gauge("ctrlkit_shard_keys_owned", "Distinct shard keys (namespaces, or names of cluster-scoped objects) this member has reconciled in its current range.").WithLabelValues(ring)
	m.share = gauge("ctrlkit_shard_share", "This member's share of the shard keys in the adopted assignment: the sum of their weights (namespaces, by default).").WithLabelValues(ring)
	m.imbalance = gauge("ctrlkit_shard_ring_imbalance", "The adopted assignment's largest share over the mean share of the live members; 1 is a perfect balance.").WithLabelValues(ring)
	m.largestKey = gauge("ctrlkit_shard_largest_key_ratio", "The largest single shard key's weight over the mean share: a key is never split, so the imbalance cannot go below it.").WithLabelValues(ring)
	counter := func(name, help string) prometheus.Counter {
		vec, err := prommetrics.Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, []string{"ring"}))
		errs = append(errs, err)
		return vec.WithLabelValues(ring)
	}
	m.rebalances = counter("ctrlkit_shard_rebalances_total", "Assignments this member computed and published as the coordinator, each moving cut points.")
	m.movedWeight = counter("ctrlkit_shard_moved_keys_total", "Weight of the shard keys (namespaces, by default) whose member changed in those rebalances.")
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

// rebalanced counts one rebalance by the coordinator.
func (m *ringMetrics) rebalanced(moved int64) {
	m.rebalances.Inc()
	m.movedWeight.Add(float64(moved))
}

// update sets the gauges from r's state.
func (m *ringMetrics) update(r *Ring) {
	r.mu.Lock()
	members, target, assignment := slices.Clone(r.view), r.target, r.assignment
	serving := r.serving
	if r.fencedLocked(r.clock.Now()) || r.left {
		serving = nil
	}
	r.mu.Unlock()
	m.members.Set(float64(len(members)))
	m.rangeFraction.Set(target.Fraction())
	m.servingFraction.Set(serving.Fraction())
	m.rangeInfo.DeletePartialMatch(prometheus.Labels{"ring": m.ring})
	for _, rg := range target {
		start, end := rg.bounds()
		m.rangeInfo.WithLabelValues(m.ring, start, end).Set(1)
	}
	if keys, ok := r.keys(); ok && len(members) > 0 {
		shares := assignment.Shares(members, keys)
		m.share.Set(float64(shares[r.opts.Lease.ID]))
		m.imbalance.Set(Imbalance(shares))
		var largest int64
		for _, k := range mergeKeys(keys) {
			largest = max(largest, k.Weight)
		}
		if t := total(keys); t > 0 {
			m.largestKey.Set(float64(largest) / (float64(t) / float64(len(members))))
		}
	}
}
