package workqueue

import "sync"

// fakeProvider records every metric by queue name and metric kind.
type fakeProvider struct {
	mu     sync.Mutex
	values map[string]float64   // gauges and counters
	obs    map[string][]float64 // histograms
}

func newFakeProvider() *fakeProvider {
	return &fakeProvider{values: map[string]float64{}, obs: map[string][]float64{}}
}

type fakeMetric struct {
	p   *fakeProvider
	key string
}

func (m fakeMetric) Inc()          { m.add(1) }
func (m fakeMetric) Dec()          { m.add(-1) }
func (m fakeMetric) add(d float64) { m.p.mu.Lock(); m.p.values[m.key] += d; m.p.mu.Unlock() }
func (m fakeMetric) Set(v float64) { m.p.mu.Lock(); m.p.values[m.key] = v; m.p.mu.Unlock() }
func (m fakeMetric) Observe(v float64) {
	m.p.mu.Lock()
	m.p.obs[m.key] = append(m.p.obs[m.key], v)
	m.p.mu.Unlock()
}

func (p *fakeProvider) metric(name, kind string) fakeMetric {
	return fakeMetric{p: p, key: name + "/" + kind}
}

func (p *fakeProvider) counter(name, kind string) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.values[name+"/"+kind]
}

func (p *fakeProvider) observations(name, kind string) []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]float64(nil), p.obs[name+"/"+kind]...)
}

func (p *fakeProvider) NewDepthMetric(n string) GaugeMetric       { return p.metric(n, "depth") }
func (p *fakeProvider) NewAddsMetric(n string) CounterMetric      { return p.metric(n, "adds") }
func (p *fakeProvider) NewLatencyMetric(n string) HistogramMetric { return p.metric(n, "latency") }
func (p *fakeProvider) NewWorkDurationMetric(n string) HistogramMetric {
	return p.metric(n, "work")
}
func (p *fakeProvider) NewUnfinishedWorkSecondsMetric(n string) SettableGaugeMetric {
	return p.metric(n, "unfinished")
}
func (p *fakeProvider) NewLongestRunningProcessorSecondsMetric(n string) SettableGaugeMetric {
	return p.metric(n, "longest")
}
func (p *fakeProvider) NewRetriesMetric(n string) CounterMetric { return p.metric(n, "retries") }
func (p *fakeProvider) NewDroppedMetric(n string) CounterMetric { return p.metric(n, "dropped") }
