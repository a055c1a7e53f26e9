package prommetrics

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// Metric names, without the "workqueue_" prefix (the subsystem). All but
// DroppedKey are controller-runtime's and client-go's.
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

// Provider creates a queue's metrics as children of collectors registered
// on one registry. It implements workqueue.MetricsProvider and
// workqueue.DroppedMetricsProvider.
//
// The collectors are controller-runtime's, descriptor for descriptor (names,
// help, labels "name" and "controller", plus "priority" on the depth), so
// that one dashboard serves both and a registry that already holds
// controller-runtime's metrics is shared rather than refused. Both labels
// carry the queue's name; the depth's priority is "", as on
// controller-runtime's queues without priorities.
type Provider struct {
	depth                 *prometheus.GaugeVec
	adds, retries         *prometheus.CounterVec
	dropped               *prometheus.CounterVec
	latency, workDuration *prometheus.HistogramVec
	unfinished, longest   *prometheus.GaugeVec
}

var (
	_ workqueue.MetricsProvider        = (*Provider)(nil)
	_ workqueue.DroppedMetricsProvider = (*Provider)(nil)
)

// New registers the workqueue metrics on reg, or reuses the ones already
// registered there (by an earlier call, or by controller-runtime), and
// returns a provider for them. It fails if reg is nil or holds a different
// collector under one of the names.
func New(reg prometheus.Registerer) (*Provider, error) {
	if reg == nil {
		return nil, errors.New("prommetrics: nil registerer")
	}
	labels := []string{"name", "controller"}
	gauge := func(name, help string, labels ...string) *prometheus.GaugeVec {
		return prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: Subsystem, Name: name, Help: help}, labels)
	}
	counter := func(name, help string) *prometheus.CounterVec {
		return prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: Subsystem, Name: name, Help: help}, labels)
	}
	histogram := func(name, help string) *prometheus.HistogramVec {
		return prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: Subsystem, Name: name, Help: help,
			Buckets:                         prometheus.ExponentialBuckets(10e-9, 10, 12),
			NativeHistogramBucketFactor:     1.1,
			NativeHistogramMaxBucketNumber:  100,
			NativeHistogramMinResetDuration: time.Hour,
		}, labels)
	}
	var errs []error
	p := &Provider{
		depth: share(reg, gauge(DepthKey, "Current depth of workqueue by workqueue and priority",
			"name", "controller", "priority"), &errs),
		adds: share(reg, counter(AddsKey, "Total number of adds handled by workqueue"), &errs),
		latency: share(reg, histogram(QueueLatencyKey,
			"How long in seconds an item stays in workqueue before being requested"), &errs),
		workDuration: share(reg, histogram(WorkDurationKey,
			"How long in seconds processing an item from workqueue takes."), &errs),
		unfinished: share(reg, gauge(UnfinishedWorkKey, "How many seconds of work has been done that "+
			"is in progress and hasn't been observed by work_duration. Large "+
			"values indicate stuck threads. One can deduce the number of stuck "+
			"threads by observing the rate at which this increases.", labels...), &errs),
		longest: share(reg, gauge(LongestRunningProcessorKey, "How many seconds has the longest running "+
			"processor for workqueue been running.", labels...), &errs),
		retries: share(reg, counter(RetriesKey, "Total number of items added to the workqueue with a non-zero delay "+
			"(rate-limited requeues, explicit RequeueAfter or AddAfter calls)"), &errs),
		dropped: share(reg, counter(DroppedKey,
			"Total number of keys a rate-limited add dropped because they reached the queue's retry limit"), &errs),
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("prommetrics: registering workqueue metrics: %w", err)
	}
	return p, nil
}

// Register registers c on reg and returns it or, if reg already holds a
// collector with the same descriptors (same names, help and labels), returns
// that one, so that everything using one registry feeds the same series.
// It fails if reg holds a different collector under one of c's names.
// Package controller registers its metrics with it too.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
		err = fmt.Errorf("a %T is registered with the same descriptors", already.ExistingCollector)
	}
	return c, err
}

// share is Register that collects its error in errs.
func share[C prometheus.Collector](reg prometheus.Registerer, c C, errs *[]error) C {
	c, err := Register(reg, c)
	if err != nil {
		*errs = append(*errs, err)
	}
	return c
}

// NewDepthMetric returns the depth gauge of queue name.
func (p *Provider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return p.depth.WithLabelValues(name, name, "")
}

// NewAddsMetric returns the adds counter of queue name.
func (p *Provider) NewAddsMetric(name string) workqueue.CounterMetric {
	return p.adds.WithLabelValues(name, name)
}

// NewLatencyMetric returns the queue-duration histogram of queue name.
func (p *Provider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return p.latency.WithLabelValues(name, name)
}

// NewWorkDurationMetric returns the work-duration histogram of queue name.
func (p *Provider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return p.workDuration.WithLabelValues(name, name)
}

// NewUnfinishedWorkSecondsMetric returns the unfinished-work gauge of queue
// name.
func (p *Provider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name, name)
}

// NewLongestRunningProcessorSecondsMetric returns the longest-running gauge
// of queue name.
func (p *Provider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return p.longest.WithLabelValues(name, name)
}

// NewRetriesMetric returns the retries counter of queue name.
func (p *Provider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return p.retries.WithLabelValues(name, name)
}

// NewDroppedMetric returns the dropped-keys counter of queue name.
func (p *Provider) NewDroppedMetric(name string) workqueue.CounterMetric {
	return p.dropped.WithLabelValues(name, name)
}
