package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/deployment"
)

// eventSource is the component our controller's events come from, the same
// as kube-controller-manager's Deployment controller, so that both are
// counted alike.
const eventSource = "deployment-controller"

// runningController is our Deployment controller running in this process.
type runningController struct {
	counter  *writeCounter // every write its client sends
	registry *prometheus.Registry
	stop     func() error
}

// summary describes the controller's work from its metrics: reconciles by
// result, then its work queue as queueSummary describes kube-controller-
// manager's (keys handed out, mean work time and wait, retries). It helps
// explain the times; the table does not depend on it.
func (c *runningController) summary() string {
	gathered, err := c.registry.Gather()
	if err != nil {
		return fmt.Sprintf("metrics unavailable: %v", err)
	}
	families := make(map[string]*dto.MetricFamily, len(gathered))
	for _, f := range gathered {
		families[f.GetName()] = f
	}
	var parts []string
	for _, m := range families["controller_runtime_reconcile_total"].GetMetric() {
		if v := m.GetCounter().GetValue(); v > 0 {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" {
					parts = append(parts, fmt.Sprintf("reconciles %s: %.0f", l.GetValue(), v))
				}
			}
		}
	}
	queue, err := summarizeQueue(families, deployment.ControllerName)
	if err != nil {
		queue = err.Error()
	}
	parts = append(parts, queue)
	// Read-your-writes: how often a key waited for its caches, and how long.
	for _, m := range families["controller_runtime_reconcile_cache_hold_duration_seconds"].GetMetric() {
		if h := m.GetHistogram(); h.GetSampleCount() > 0 {
			parts = append(parts, fmt.Sprintf("cache holds: %d, mean %.1fms", h.GetSampleCount(), 1000*h.GetSampleSum()/float64(h.GetSampleCount())))
		}
	}
	for _, m := range families["controller_runtime_reconcile_cache_hold_timeouts_total"].GetMetric() {
		parts = append(parts, fmt.Sprintf("cache holds that hit the bound: %.0f", m.GetCounter().GetValue()))
	}
	for _, m := range families[eventsRecordedName].GetMetric() {
		parts = append(parts, fmt.Sprintf("events recorded: %.0f", m.GetCounter().GetValue()))
	}
	return strings.Join(parts, ", ")
}

// startOurs runs ctrlkit's Deployment controller against the API server of
// base, with a client rate limit of qps/burst, and returns once its caches
// have synced.
func startOurs(ctx context.Context, base *rest.Config, cfg config) (*runningController, error) {
	counter := newWriteCounter()
	ours, err := newOurController(base, cfg.qps, cfg.burst, cfg.workers, eventSource, nil, counter.wrap)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	cleanup := func() {
		cancel()
		ours.shutdown()
	}
	ctrl, registry := ours.ctrl, ours.registry
	ours.factory.Start(runCtx.Done())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(runCtx) }()

	stop := func() error {
		cancel()
		err := <-done
		cleanup()
		return err
	}
	ticker := time.NewTicker(50 * time.Millisecond)
	defer ticker.Stop()
	for !ctrl.HasSynced() {
		select {
		case err := <-done:
			cleanup()
			return nil, fmt.Errorf("our Deployment controller stopped before its caches synced: %w", err)
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), stop())
		case <-ticker.C:
		}
	}
	return &runningController{counter: counter, registry: registry, stop: stop}, nil
}

// startIdleInformers starts the informers our controller would run, built
// as startOurs builds them, but runs no controller: whatever they cost the
// API server and this process, an upstream run then pays too. It returns
// once their caches have synced.
func startIdleInformers(ctx context.Context, base *rest.Config, cfg config) (stop func(), err error) {
	idle, err := newOurController(base, cfg.qps, cfg.burst, cfg.workers, eventSource, nil)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	stop = func() {
		cancel()
		idle.shutdown()
	}
	idle.factory.Start(runCtx.Done())
	for typ, synced := range idle.factory.WaitForCacheSync(runCtx.Done()) {
		if !synced {
			stop()
			return nil, fmt.Errorf("idle informers: the %v cache did not sync", typ)
		}
	}
	return stop, nil
}
