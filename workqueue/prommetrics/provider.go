package prommetrics

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Metric names, without the "workqueue_" prefix (the subsystem).
const (
	Subsystem                  = "workqueue"
	DepthKey                   = "depth"
	AddsKey                    = "adds_total"
	QueueLatencyKey            = "queue_duration_seconds"
	WorkDurationKey            = "work_duration_seconds"
	UnfinishedWorkKey          = "unfinished_work_seconds"
	LongestRunningProcessorKey = "longest_running_processor_seconds"
	RetriesKey                 = "retries_total"
	DroppedKey                 = "dropped_total"
)

// Provider creates a queue's metrics as children (label "name") of
// collectors registered on one registry. It implements
// workqueue.MetricsProvider and workqueue.DroppedMetricsProvider.
type Provider struct {
	depth        *prometheus.GaugeVec
	adds         *prometheus.CounterVec
	latency      *prometheus.HistogramVec
	workDuration *prometheus.HistogramVec
	unfinished   *prometheus.GaugeVec
	longest      *prometheus.GaugeVec
	retries      *prometheus.CounterVec
	dropped      *prometheus.CounterVec
}

var (
	_ workqueue.MetricsProvider        = (*Provider)(nil)
	_ workqueue.DroppedMetricsProvider = (*Provider)(nil)
)

// durationBuckets are component-base's workqueue buckets: 10ns to 10s.
var durationBuckets = prometheus.ExponentialBuckets(10e-9, 10, 10)

// New registers the workqueue metrics on reg, or reuses the ones a previous
// call registered there, and returns a provider for them. It fails if reg is
// nil or holds a different collector under one of the names.
func New(reg prometheus.Registerer) (*Provider, error) {
	if reg == nil {
		return nil, errors.New("prommetrics: nil registerer")
	}
	labels := []string{"name"}
	p := &Provider{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: DepthKey,
			Help: "Number of keys waiting in the workqueue to be handed out",
		}, labels),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: AddsKey,
			Help: "Total number of keys the workqueue queued (repeats of a queued key excluded)",
		}, labels),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem, Name: QueueLatencyKey,
			Help:    "Seconds a key waits in the workqueue, from ready to handed out",
			Buckets: durationBuckets,
		}, labels),
		workDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem, Name: WorkDurationKey,
			Help:    "Seconds a worker holds a key, from handed out to Done",
			Buckets: durationBuckets,
		}, labels),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: UnfinishedWorkKey,
			Help: "Seconds of work in progress that work_duration has not observed yet. " +
				"A steady rise means stuck workers; its rate is how many.",
		}, labels),
		longest: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: Subsystem, Name: LongestRunningProcessorKey,
			Help: "Seconds the longest-held key has been in flight",
		}, labels),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: RetriesKey,
			Help: "Total number of delayed or rate-limited adds",
		}, labels),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: Subsystem, Name: DroppedKey,
			Help: "Total number of keys a rate-limited add dropped because they reached the queue's retry limit",
		}, labels),
	}
	var err error
	p.depth, err = register(reg, p.depth)
	if err == nil {
		p.adds, err = register(reg, p.adds)
	}
	if err == nil {
		p.latency, err = register(reg, p.latency)
	}
	if err == nil {
		p.workDuration, err = register(reg, p.workDuration)
	}
	if err == nil {
		p.unfinished, err = register(reg, p.unfinished)
	}
	if err == nil {
		p.longest, err = register(reg, p.longest)
	}
	if err == nil {
		p.retries, err = register(reg, p.retries)
	}
	if err == nil {
		p.dropped, err = register(reg, p.dropped)
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// register registers c on reg and returns it, or returns the equal collector
// already registered there.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if existing, ok := are.ExistingCollector.(C); ok {
			return existing, nil
		}
		err = fmt.Errorf("a %T is registered under the same name", are.ExistingCollector)
	}
	var zero C
	return zero, fmt.Errorf("prommetrics: registering workqueue metrics: %w", err)
}

// NewDepthMetric returns the depth gauge of queue name.
func (p *Provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.depth.WithLabelValues(name)
}

// NewAddsMetric returns the adds counter of queue name.
func (p *Provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.adds.WithLabelValues(name)
}

// NewLatencyMetric returns the queue-duration histogram of queue name.
func (p *Provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.latency.WithLabelValues(name)
}

// NewWorkDurationMetric returns the work-duration histogram of queue name.
func (p *Provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.workDuration.WithLabelValues(name)
}

// NewUnfinishedWorkSecondsMetric returns the unfinished-work gauge of queue
// name.
func (p *Provider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name)
}

// NewLongestRunningProcessorSecondsMetric returns the longest-running gauge
// of queue name.
func (p *Provider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.longest.WithLabelValues(name)
}

// NewRetriesMetric returns the retries counter of queue name.
func (p *Provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.retries.WithLabelValues(name)
}

// NewDroppedMetric returns the dropped-keys counter of queue name.
func (p *Provider) NewDroppedMetric(name string) workqueue.CounterMetric {
	return p.dropped.WithLabelValues(name)
}
