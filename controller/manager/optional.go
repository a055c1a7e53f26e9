package manager

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlkit/ctrlkit/controller/internal/crdwatch"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
)

// Optional is a part of an operator that runs only while the custom
// resources it needs are served: controllers of ServiceMonitors where the
// Prometheus operator's CRDs are installed, of HTTPRoutes where Gateway API
// is. Add it with AddOptional.
type Optional struct {
	// Name names the part in logs, in its /readyz check
	// ("optional-"+Name) and in the ctrlkit_optional_resource_watched
	// metric. It must be unique and contain no '/'.
	Name string

	// Resources are the custom resources the part needs. It runs while
	// the CustomResourceDefinition of every one is Established and serves
	// its version, and stops when one is deleted or stops serving it. A
	// CRD being deleted still counts until it is gone, so that the part's
	// controllers can remove their finalizers from the objects the
	// deletion waits for.
	Resources []schema.GroupVersionResource

	// Setup builds the part each time the resources appear: it creates
	// its informer factories and controllers anew (an informer runs only
	// once) and adds them to reg, without starting them; builder's
	// ControllerManagedBy takes reg. The Manager starts them as Add and
	// AddInformerFactory on a running Manager do (leader runnables only
	// while leading), and when a resource goes, stops the runnables,
	// waits for their reconciles to end, then stops and shuts down the
	// factories, whose caches are then released. An error from Setup
	// stops the Manager, like a failing runnable.
	Setup func(reg Registrar) error
}

// Registrar is where Optional.Setup adds what it builds. *Manager is one
// too.
type Registrar interface {
	Add(r Runnable) error
	AddInformerFactory(f InformerFactory) error
}

// AddOptional registers a part that runs only while its resources are
// served, before or after Run. The Manager follows the cluster's
// CustomResourceDefinitions with an informer of its own (through
// Options.RESTConfig, which needs list and watch on
// customresourcedefinitions), started on every replica.
//
// A part's absence is not an error: /readyz stays ready, nothing is logged
// above Info. Its check "optional-"+Name always passes and says, under
// /readyz?verbose, which resources it watches or misses;
// ctrlkit_optional_resource_watched{optional,resource} is 1 while the
// part runs. Neither its runnables nor its factories gate "runnable-sync"
// or "informer-sync": a CRD installed in the cluster does not take every
// replica of the operator out of service while the new caches fill.
func (m *Manager) AddOptional(o Optional) error {
	if err := o.check(); err != nil {
		return err
	}
	tracker, err := m.crdTracker()
	if err != nil {
		return fmt.Errorf("manager: optional %q: %w", o.Name, err)
	}
	watched, err := m.optionalMetric()
	if err != nil {
		return fmt.Errorf("manager: optional %q: %w", o.Name, err)
	}
	p := &optionalPart{m: m, o: o, tracker: tracker, watched: watched}
	if err := m.readyz.addWithDetail("optional-"+o.Name, func() string { return p.status() }); err != nil {
		return err
	}
	p.setMetric(0)
	return m.Add(p)
}

func (o Optional) check() error {
	var errs []error
	if o.Name == "" || strings.Contains(o.Name, "/") {
		errs = append(errs, fmt.Errorf("field Name %q must be non-empty and contain no '/'", o.Name))
	}
	if len(o.Resources) == 0 {
		errs = append(errs, errors.New("field Resources must not be empty"))
	}
	for _, r := range o.Resources {
		if r.Group == "" || r.Version == "" || r.Resource == "" {
			errs = append(errs, fmt.Errorf("resource %q: group, version and resource are required (only custom resources come and go)", resourceName(r)))
		}
	}
	if o.Setup == nil {
		errs = append(errs, errors.New("field Setup must not be nil"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("manager: AddOptional: %w", err)
	}
	return nil
}

// crdTracker returns the Manager's CRD informer, creating it and adding
// the runnable that runs it on the first call.
func (m *Manager) crdTracker() (*crdwatch.Tracker, error) {
	m.mu.Lock()
	if m.crds != nil {
		defer m.mu.Unlock()
		return m.crds, nil
	}
	newTracker := m.newCRDTracker
	if newTracker == nil {
		if m.opts.RESTConfig == nil {
			m.mu.Unlock()
			return nil, errors.New("a RESTConfig in Options is required to follow CustomResourceDefinitions")
		}
		newTracker = func() (*crdwatch.Tracker, error) { return crdwatch.ForConfig(m.opts.RESTConfig) }
	}
	tracker, err := newTracker()
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	_, err = m.addRunnableLocked(crdRunnable{tracker}, "")
	if err == nil {
		m.crds = tracker
	}
	m.mu.Unlock()
	return tracker, err
}

// resourceName spells r as kubectl does: "servicemonitors.v1.monitoring.coreos.com".
func resourceName(r schema.GroupVersionResource) string {
	return r.Resource + "." + r.Version + "." + r.Group
}

func resourceNames(rs []schema.GroupVersionResource) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = resourceName(r)
	}
	return strings.Join(names, ", ")
}

// optionalParts collects what Setup adds.
type optionalParts struct {
	runnables []Runnable
	factories []InformerFactory
}

func (p *optionalParts) Add(r Runnable) error {
	if r == nil {
		return errors.New("manager: Add(nil)")
	}
	if _, ok := r.(*webhook.Server); ok {
		return errors.New("manager: a webhook server cannot be part of an Optional")
	}
	p.runnables = append(p.runnables, r)
	return nil
}

func (p *optionalParts) AddInformerFactory(f InformerFactory) error {
	if f == nil {
		return errors.New("manager: AddInformerFactory(nil)")
	}
	p.factories = append(p.factories, f)
	return nil
}
