package manager

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"

	"github.com/ctrlkit/ctrlkit/controller/internal/crdwatch"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
)

// Errors returned by Run.
var (
	// ErrLeaderElectionLost means this process stopped holding the Lease
	// while running. The process should exit: a standby is taking over.
	ErrLeaderElectionLost = errors.New("manager: leader election lost")
	// ErrShutdownTimeout means something did not stop within
	// Options.GracefulShutdownTimeout; the error names who.
	ErrShutdownTimeout = errors.New("manager: graceful shutdown timed out")
)

// Manager runs informer factories and runnables (controllers and others) in
// one process, with optional leader election, health and metrics endpoints
// and an ordered graceful shutdown. See the package documentation.
//
// Add runnables and factories before Run; a Manager runs once.
type Manager struct {
	opts     Options
	logger   logr.Logger
	registry *prometheus.Registry
	elector  *elector // nil without leader election
	events   *eventBroadcasters
	auth     *reviewer      // nil without MetricsAuth
	ring     *sharding.Ring // nil without Options.Sharding

	healthz checkSet
	readyz  checkSet

	mu        sync.Mutex
	started   bool
	run       *run // the Run under way or over, nil before Run
	names     map[string]bool
	runnables []*runnableEntry
	factories []*factoryEntry

	webhooks []*runnableEntry // webhook servers: see webhook.go

	crds          *crdwatch.Tracker                 // the CRD informer of AddOptional, nil before
	newCRDTracker func() (*crdwatch.Tracker, error) // tests fake the CRDs; nil: Options.RESTConfig
	webhookErr    error                             // why the default webhook server cannot run

	elected      chan struct{}
	electedOnce  sync.Once
	leading      atomic.Bool // holds the Lease (always false without leader election)
	shuttingDown atomic.Bool

	healthProbeAddr atomic.Pointer[string]
	metricsAddr     atomic.Pointer[string]
	pprofAddr       atomic.Pointer[string]

	// wrapListener, if set, wraps each bound listener: tests inject failures.
	wrapListener func(net.Listener) net.Listener
}

// New checks opts and returns a Manager that has not started anything yet.
func New(opts Options) (*Manager, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Manager{
		opts:     opts,
		logger:   opts.Logger,
		registry: opts.Registry,
		names:    map[string]bool{},
		elected:  make(chan struct{}),
		events:   newEventBroadcasters(opts.Client, opts.Logger),
	}
	if m.registry == nil {
		m.registry = prometheus.NewRegistry()
		m.registry.MustRegister(
			collectors.NewGoCollector(),
			collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		)
	}
	if opts.LeaderElection.Enabled {
		if opts.LeaderElection.EventRecorder == nil && opts.Client != nil {
			opts.LeaderElection.EventRecorder = leaseEventRecorder{m, opts.LeaderElection.Name}
			m.opts.LeaderElection.EventRecorder = opts.LeaderElection.EventRecorder
		}
		installLeaderMetrics() // before client-go's LeaderElector asks for it
		if m.elector, err = newElector(opts.LeaderElection, opts.Lease, m.logger); err != nil {
			return nil, err
		}
		if err := registerLeaderMetric(m.registry, opts.LeaderElection.Name, opts.Lease, &m.leading); err != nil {
			return nil, err
		}
		if ours, err := registerLeaderElectionMetrics(m.registry); err != nil {
			return nil, fmt.Errorf("manager: registering leader election metrics: %w", err)
		} else if !ours {
			m.logger.Info("Another leaderelection metrics provider reports leader_election_master_status; it is not on this Manager's registry")
		}
	}
	if opts.RESTClientMetrics {
		if ours, err := registerRESTClientMetrics(m.registry); err != nil {
			return nil, fmt.Errorf("manager: registering REST client metrics: %w", err)
		} else if !ours {
			m.logger.Info("Another adapter reports client-go's REST client metrics; they are not on this Manager's registry")
		}
	}
	if opts.MetricsAuth {
		m.auth = newReviewer(opts.Client, m.logger)
	}
	if opts.WebhookServer != nil {
		m.addWebhookServerLocked(opts.WebhookServer)
	}
	m.addDefaultChecks()
	if err := m.newRing(); err != nil {
		return nil, err
	}
	return m, nil
}

// addDefaultChecks installs the built-in checks, ahead of the caller's.
func (m *Manager) addDefaultChecks() {
	m.healthz.checks = []namedCheck{{name: "ping", check: Ping}}
	if m.elector != nil {
		m.healthz.checks = append(m.healthz.checks, namedCheck{name: "leader-election", check: m.elector.healthCheck})
	}
	m.readyz.checks = []namedCheck{
		{name: "ping", check: Ping},
		{name: "shutdown", check: m.checkNotShuttingDown},
		{name: "informer-sync", check: m.checkInformersSynced},
		{name: "runnable-sync", check: m.checkRunnablesSynced},
	}
}

// Add registers a runnable. Added before Run, it starts with the others;
// added to a running Manager, it starts at once, or, if it needs leader
// election and this replica does not lead, when it wins the Lease. It
// fails if r is nil, if r has the same Name as a runnable added before, if
// the Manager is shutting down or has stopped, or for a webhook server
// after Run.
func (m *Manager) Add(r Runnable) error {
	if r == nil {
		return errors.New("manager: Add(nil)")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s, ok := r.(*webhook.Server); ok {
		if m.started {
			return errors.New("manager: a webhook server cannot be added after Run")
		}
		// Served before the informers start, as Options.WebhookServer.
		m.addWebhookServerLocked(s)
		return nil
	}
	_, err := m.addRunnableLocked(r, "")
	return err
}

// addRunnableLocked registers r, as a part of the Optional named group if
// group is not empty, and starts it if Run has started its kind. m.mu is
// held.
func (m *Manager) addRunnableLocked(r Runnable, group string) (*runnableEntry, error) {
	if m.run != nil && m.run.stopping {
		return nil, fmt.Errorf("manager: Add: %w", errStopping)
	}
	e := &runnableEntry{
		name:   runnableName(r, len(m.runnables)),
		r:      r,
		leader: needsLeaderElection(r),
		group:  group,
		done:   make(chan struct{}),
	}
	if n, ok := r.(Named); ok && n.Name() != "" {
		if m.names[n.Name()] {
			return nil, fmt.Errorf("manager: a runnable named %q was already added", n.Name())
		}
		m.names[n.Name()] = true
	}
	if s, ok := r.(SyncReporter); ok {
		e.syncer = s
	}
	m.runnables = append(m.runnables, e)
	if m.run != nil {
		m.run.addRunnableLocked(e)
	}
	return e, nil
}

// AddInformerFactory registers a factory to start when Run begins, before
// any runnable, and to stop after every runnable has stopped. Added to a
// running Manager, it starts at once. Wrap client-go factories with
// Factory. It fails if f is nil, or if the Manager is shutting down or has
// stopped.
func (m *Manager) AddInformerFactory(f InformerFactory) error {
	if f == nil {
		return errors.New("manager: AddInformerFactory(nil)")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	_, err := m.addFactoryLocked(f, "")
	return err
}

// addFactoryLocked registers f, as a part of the Optional named group if
// group is not empty, and starts it if Run has started the factories.
// m.mu is held.
func (m *Manager) addFactoryLocked(f InformerFactory, group string) (*factoryEntry, error) {
	if m.run != nil && m.run.stopping {
		return nil, fmt.Errorf("manager: AddInformerFactory: %w", errStopping)
	}
	e := newFactoryEntry(fmt.Sprintf("informer factory #%d (%s)", len(m.factories), typeName(f)), f, group)
	m.factories = append(m.factories, e)
	if m.run != nil {
		m.run.addFactoryLocked(e)
	}
	return e, nil
}

// AddHealthzCheck adds a named check to /healthz (and /healthz/<name>).
// Names must be unique per endpoint; "ping" and "leader-election" are taken.
func (m *Manager) AddHealthzCheck(name string, check Checker) error {
	return m.healthz.add(name, check)
}

// AddReadyzCheck adds a named check to /readyz (and /readyz/<name>). Names
// must be unique per endpoint; "ping", "shutdown", "informer-sync" and
// "runnable-sync" are taken.
func (m *Manager) AddReadyzCheck(name string, check Checker) error {
	return m.readyz.add(name, check)
}

// Registry is the registry served on /metrics: Options.Registry, or the one
// the Manager created. Register controller metrics on it.
func (m *Manager) Registry() *prometheus.Registry { return m.registry }

// TracerProvider is Options.TracerProvider, nil without tracing: runnables
// of the caller's that make spans of their own use it.
func (m *Manager) TracerProvider() trace.TracerProvider { return m.opts.TracerProvider }

// Elected is closed when the runnables that need leader election start:
// once the Lease is won, or when Run starts without leader election.
func (m *Manager) Elected() <-chan struct{} { return m.elected }

// ID is this candidate's identity in the Lease, or "" without leader election.
func (m *Manager) ID() string {
	if m.elector == nil {
		return ""
	}
	return m.elector.id
}

// HealthProbeAddr is the address /healthz and /readyz listen on, such as
// "[::]:43567" for Options.HealthProbeAddr ":0". It is empty when disabled
// and until Run has bound it.
func (m *Manager) HealthProbeAddr() string { return loadAddr(&m.healthProbeAddr) }

// MetricsAddr is the address /metrics listens on; see HealthProbeAddr.
func (m *Manager) MetricsAddr() string { return loadAddr(&m.metricsAddr) }

// PprofAddr is the address /debug/pprof/ listens on; see HealthProbeAddr.
func (m *Manager) PprofAddr() string { return loadAddr(&m.pprofAddr) }

func loadAddr(p *atomic.Pointer[string]) string {
	if a := p.Load(); a != nil {
		return *a
	}
	return ""
}

func (m *Manager) checkNotShuttingDown(*http.Request) error {
	if m.shuttingDown.Load() {
		return errors.New("shutting down")
	}
	return nil
}

func (m *Manager) checkInformersSynced(*http.Request) error {
	m.mu.Lock()
	factories := m.factories
	m.mu.Unlock()
	var pending []string
	for _, f := range factories {
		if f.group != "" {
			continue // the Optional's own check reports it
		}
		if !f.synced.Load() {
			pending = append(pending, f.name)
		}
	}
	return errNotSynced(pending)
}

// checkRunnablesSynced skips leader runnables that have not started: a
// standby replica is ready although it does not run them.
func (m *Manager) checkRunnablesSynced(*http.Request) error {
	m.mu.Lock()
	runnables := m.runnables
	m.mu.Unlock()
	var pending []string
	for _, e := range runnables {
		if e.syncer == nil || e.group != "" || (e.leader && !e.started.Load()) {
			continue // not a readiness gate; see also optional.go
		}
		if !e.syncer.HasSynced() {
			pending = append(pending, e.name)
		}
	}
	return errNotSynced(pending)
}

// typeName names v in messages: its String method if any, else its type.
func typeName(v any) string {
	if s, ok := v.(fmt.Stringer); ok {
		return s.String()
	}
	return fmt.Sprintf("%T", v)
}
