package manager

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/controller/internal/crdwatch"
	"github.com/ctrlkit/ctrlkit/workqueue/prommetrics"
)

// optionalPart is the runnable behind one Optional: it runs on every
// replica, follows the CRD informer, and adds the part's runnables and
// factories to the Manager while its resources are served, removing them
// when one goes.
type optionalPart struct {
	m       *Manager
	o       Optional
	tracker *crdwatch.Tracker
	watched *prometheus.GaugeVec

	mu        sync.Mutex
	running   bool
	missing   string // the resources not served, when not running
	runnables []*runnableEntry
	factories []*factoryEntry
}

func (p *optionalPart) Name() string             { return "optional-" + p.o.Name }
func (p *optionalPart) NeedLeaderElection() bool { return false }

// Run starts and stops the part as its resources come and go, until ctx
// ends; then it stops the part and returns.
func (p *optionalPart) Run(ctx context.Context) error {
	changed := make(chan struct{}, 1)
	remove, err := p.tracker.Notify(changed)
	if err != nil {
		return fmt.Errorf("manager: optional %q: %w", p.o.Name, err)
	}
	defer remove()
	defer p.stop("the Manager is stopping")
	select {
	case <-p.tracker.Synced():
	case <-ctx.Done():
		return nil
	}
	for {
		missing := p.tracker.Missing(p.o.Resources)
		p.mu.Lock()
		p.missing = resourceNames(missing)
		running := p.running
		p.mu.Unlock()
		switch {
		case len(missing) == 0 && !running:
			if err := p.start(ctx); err != nil {
				return err
			}
		case len(missing) > 0 && running:
			p.stop("not served: " + resourceNames(missing))
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
	}
}

// start builds the part with Setup and adds it to the Manager, which
// starts it.
func (p *optionalPart) start(ctx context.Context) error {
	log := p.m.logger.WithValues("optional", p.o.Name)
	log.Info("Resources served, starting the optional part", "resources", resourceNames(p.o.Resources))
	parts := &optionalParts{}
	if err := p.o.Setup(parts); err != nil {
		return fmt.Errorf("manager: optional %q: Setup: %w", p.o.Name, err)
	}
	runnables, factories, err := p.add(parts)
	p.mu.Lock()
	p.running, p.runnables, p.factories = true, runnables, factories
	p.mu.Unlock()
	if err != nil {
		p.stop("Setup's parts could not be added")
		if errors.Is(err, errStopping) || ctx.Err() != nil {
			return nil // the Manager is stopping: not the part's failure
		}
		return fmt.Errorf("manager: optional %q: %w", p.o.Name, err)
	}
	p.setMetric(1)
	return nil
}

// add adds the factories, then the runnables, to the Manager, and returns
// those it added.
func (p *optionalPart) add(parts *optionalParts) ([]*runnableEntry, []*factoryEntry, error) {
	m := p.m
	m.mu.Lock()
	defer m.mu.Unlock()
	var runnables []*runnableEntry
	var factories []*factoryEntry
	for _, f := range parts.factories {
		e, err := m.addFactoryLocked(f, p.o.Name)
		if err != nil {
			return runnables, factories, err
		}
		factories = append(factories, e)
	}
	for _, r := range parts.runnables {
		e, err := m.addRunnableLocked(r, p.o.Name)
		if err != nil {
			return runnables, factories, err
		}
		runnables = append(runnables, e)
	}
	return runnables, factories, nil
}

// stop stops the part's runnables, then its factories, and waits for
// them (see Manager.remove).
func (p *optionalPart) stop(why string) {
	p.mu.Lock()
	if !p.running {
		p.mu.Unlock()
		return
	}
	runnables, factories := p.runnables, p.factories
	p.running, p.runnables, p.factories = false, nil, nil
	p.mu.Unlock()
	p.setMetric(0)
	log := p.m.logger.WithValues("optional", p.o.Name)
	log.Info("Stopping the optional part", "reason", why)
	p.m.remove(runnables, factories)
	log.Info("Optional part stopped; its caches are released")
}

func (p *optionalPart) setMetric(v float64) {
	for _, r := range p.o.Resources {
		p.watched.WithLabelValues(p.o.Name, resourceName(r)).Set(v)
	}
}

// status is the detail of the part's /readyz check.
func (p *optionalPart) status() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.running && p.missing == "":
		return "not watching: waiting for the CustomResourceDefinitions"
	case !p.running:
		return "not watching: not served: " + p.missing
	}
	for _, f := range p.factories {
		if !f.synced.Load() {
			return "starting: informers syncing: " + resourceNames(p.o.Resources)
		}
	}
	for _, e := range p.runnables {
		if e.syncer != nil && e.started.Load() && !e.syncer.HasSynced() {
			return "starting: " + e.name + " syncing: " + resourceNames(p.o.Resources)
		}
	}
	return "watching " + resourceNames(p.o.Resources)
}

// optionalMetricName is 1 while an Optional part runs, per resource.
const optionalMetricName = "ctrlkit_optional_resource_watched"

func (m *Manager) optionalMetric() (*prometheus.GaugeVec, error) {
	return prommetrics.Register(m.registry, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: optionalMetricName,
		Help: "1 while the optional part runs, watching this resource; 0 while the resource is not served.",
	}, []string{"optional", "resource"}))
}

// crdRunnable runs the CRD informer on every replica.
type crdRunnable struct{ t *crdwatch.Tracker }

func (c crdRunnable) Name() string             { return "optional-crd-watch" }
func (c crdRunnable) NeedLeaderElection() bool { return false }
func (c crdRunnable) Run(ctx context.Context) error {
	c.t.Run(ctx)
	return nil
}
