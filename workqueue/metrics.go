package workqueue

// queueMetrics feeds a MetricsProvider, with the Queue's mutex held, which
// also guards its own fields.
type queueMetrics[T comparable] struct {
	depth        GaugeMetric
	adds         CounterMetric
	latency      HistogramMetric
	workDuration HistogramMetric
	unfinished   SettableGaugeMetric
	longest      SettableGaugeMetric
	retries      CounterMetric
	dropped      CounterMetric

	// started holds the hand-out time of each key in flight.
	started            map[T]int64
	nextUnfinishedTime int64
}

type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Dec()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

func newQueueMetrics[T comparable](p MetricsProvider, name string) *queueMetrics[T] {
	m := &queueMetrics[T]{
		depth:        p.NewDepthMetric(name),
		adds:         p.NewAddsMetric(name),
		latency:      p.NewLatencyMetric(name),
		workDuration: p.NewWorkDurationMetric(name),
		unfinished:   p.NewUnfinishedWorkSecondsMetric(name),
		longest:      p.NewLongestRunningProcessorSecondsMetric(name),
		retries:      p.NewRetriesMetric(name),
		dropped:      noopMetric{},
		started:      make(map[T]int64),
	}
	if dp, ok := p.(DroppedMetricsProvider); ok {
		m.dropped = dp.NewDroppedMetric(name)
	}
	return m
}

// added counts a key that became ready (or held): depth counts both, as in
// client-go.
func (m *queueMetrics[T]) added() {
	m.adds.Inc()
	m.depth.Inc()
}

// handedOut records that key was handed out at now, after being ready for
// wait nanoseconds.
func (m *queueMetrics[T]) handedOut(key T, now, wait int64) {
	m.depth.Dec()
	m.latency.Observe(seconds(wait))
	m.started[key] = now
}

// done records the end of key's work at now.
func (m *queueMetrics[T]) done(key T, now int64) {
	if start, ok := m.started[key]; ok {
		m.workDuration.Observe(seconds(now - start))
		delete(m.started, key)
	}
	if len(m.started) == 0 {
		// Nothing in flight: the timer stops refreshing, so zero now.
		m.unfinished.Set(0)
		m.longest.Set(0)
	}
}

// refreshUnfinished sets the unfinished-work gauges if their period has
// passed and returns when they are next due.
func (m *queueMetrics[T]) refreshUnfinished(now int64) int64 {
	if now < m.nextUnfinishedTime {
		return m.nextUnfinishedTime
	}
	var total, longest int64
	for _, start := range m.started {
		age := now - start
		total += age
		longest = max(longest, age)
	}
	m.unfinished.Set(seconds(total))
	m.longest.Set(seconds(longest))
	m.nextUnfinishedTime = now + unfinishedWorkPeriod
	return m.nextUnfinishedTime
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }
