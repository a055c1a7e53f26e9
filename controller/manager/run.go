package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"

	"github.com/ctrlkit/ctrlkit/controller/internal/tracing"
)

// runnableEntry is one added runnable and, once started, its goroutine.
type runnableEntry struct {
	name    string
	r       Runnable
	leader  bool         // needs leader election: starts once elected, stops first
	syncer  SyncReporter // nil if r does not report sync
	group   string       // the Optional it belongs to, "" for none: see optional.go
	started atomic.Bool
	cancel  context.CancelFunc // set by start; stops this runnable alone
	removed atomic.Bool        // stopped by its Optional: its error is not the Manager's
	done    chan struct{}      // closed when Run has returned
	err     error              // Run's result, set before done closes
}

// start runs the runnable in its own goroutine and sends it on failed if
// it returns an error. Runnables added to a running Manager make the
// number of runnables unbounded, so the send does not block: if failed is
// full, a failure is already on its way to stop the Manager, and the
// shutdown reports every runnable's error (runnableErrors).
func (e *runnableEntry) start(ctx context.Context, failed chan<- *runnableEntry) {
	e.started.Store(true)
	ctx, e.cancel = context.WithCancel(ctx)
	go func() {
		defer close(e.done)
		e.err = e.r.Run(ctx)
		if e.err != nil && !e.removed.Load() {
			select {
			case failed <- e:
			default:
			}
		}
	}()
}

// factoryEntry is one added informer factory.
type factoryEntry struct {
	name     string
	f        InformerFactory
	group    string // the Optional it belongs to, "" for none
	started  atomic.Bool
	synced   atomic.Bool
	syncDone chan struct{} // closed when WaitForCacheSync has returned, once started
	stop     chan struct{} // closed by halt
	stopOnce sync.Once
}

func newFactoryEntry(name string, f InformerFactory, group string) *factoryEntry {
	return &factoryEntry{name: name, f: f, group: group, syncDone: make(chan struct{}), stop: make(chan struct{})}
}

// halt stops the factory's informers; it may be called more than once.
func (f *factoryEntry) halt() { f.stopOnce.Do(func() { close(f.stop) }) }

// start starts the factory's informers and records when they have synced.
func (f *factoryEntry) start(log logr.Logger) {
	stop := f.stop
	f.started.Store(true)
	f.f.Start(stop)
	go func() {
		defer close(f.syncDone)
		if f.f.WaitForCacheSync(stop) {
			f.synced.Store(true)
			log.V(2).Info("Informer caches synced", "factory", f.name)
		}
	}()
}

// Run starts everything and blocks until ctx is cancelled, a runnable
// fails, or leadership is lost; then it shuts down in order (see the
// package documentation) and returns. It returns nil after a clean
// shutdown caused by ctx; otherwise the errors of failed runnables,
// ErrLeaderElectionLost and ErrShutdownTimeout, joined.
//
// Run binds the HTTP endpoints first and returns at once if it cannot.
func (m *Manager) Run(ctx context.Context) error {
	r, err := m.claim(ctx)
	if err != nil {
		return err
	}
	if err := m.checkCoordinatedServed(); err != nil {
		return err
	}
	if err := r.startWebhooks(); err != nil {
		return err
	}
	if err := r.startServers(); err != nil {
		r.stopWebhooks()
		return err
	}
	factories, watched := r.startInformers()
	go r.checkInformersStarted(factories, watched)
	r.startOthers()
	r.campaign()
	return r.shutdown(r.waitForStop(ctx))
}

// run is one Run of a Manager: what it started, in the order the shutdown
// stops it.
type run struct {
	m    *Manager
	log  logr.Logger
	base context.Context // ctx's values, not its cancellation

	servers      []*server
	serverFailed chan *server

	factories     []*factoryEntry
	stopInformers chan struct{} // closed when the shutdown stops the factories
	checkDone     chan struct{} // closed when checkInformersStarted has returned
	unstarted     chan error    // watched informers nothing started; buffered

	webhooks                    []*runnableEntry // started first, stopped after the informers
	cancelWebhooks              context.CancelFunc
	leaders, others             []*runnableEntry // m.mu guards them (see late.go)
	leadersCtx, othersCtx       context.Context
	cancelLeaders, cancelOthers context.CancelFunc
	failed                      chan *runnableEntry // buffered for the runnables added before Run

	// Guarded by m.mu: what Run has started, for what is added later.
	informersStarted, othersStarted bool
	stopping                        bool // the shutdown has begun: nothing more is added

	wonElection    <-chan struct{} // nil without leader election, or once won
	electionDone   chan struct{}   // nil without leader election
	cancelElection context.CancelFunc
	leading        bool // leader runnables started: the Lease won, or no election (written under m.mu)

	// Set by shutdown.
	deadline   context.Context
	stragglers []string
}

// claim marks the Manager as run and sorts its runnables.
func (m *Manager) claim(ctx context.Context) (*run, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.started {
		return nil, errors.New("manager: Run called twice")
	}
	m.started = true
	r := &run{
		m:             m,
		log:           m.logger,
		factories:     m.factories,
		stopInformers: make(chan struct{}),
		checkDone:     make(chan struct{}),
		unstarted:     make(chan error, 1),
		failed:        make(chan *runnableEntry, len(m.runnables)+len(m.webhooks)),
		webhooks:      m.webhooks,
	}
	// Runnables see ctx's values but not its cancellation: the Manager
	// cancels them itself, in order.
	r.base = logr.NewContext(context.WithoutCancel(ctx), r.log)
	if m.opts.TracerProvider != nil {
		r.base = tracing.WithProvider(r.base, m.opts.TracerProvider)
	}
	r.othersCtx, r.cancelOthers = context.WithCancel(r.base)
	r.leadersCtx, r.cancelLeaders = context.WithCancel(r.base)
	m.run = r
	for _, e := range m.runnables {
		if e.leader {
			r.leaders = append(r.leaders, e)
		} else {
			r.others = append(r.others, e)
		}
	}
	return r, nil
}

// startServers binds the HTTP endpoints and serves them.
func (r *run) startServers() error {
	servers, err := r.m.listen()
	if err != nil {
		return err
	}
	r.servers, r.serverFailed = servers, make(chan *server, len(servers))
	for _, s := range servers {
		r.log.Info("Serving", "server", s.name, "addr", s.l.Addr().String())
		s.serve(r.serverFailed)
	}
	return nil
}

// startInformers starts the informer factories, once: client-go's
// factories start the informers requested before Start, and an informer
// requested later waits for another Start (see InformerFactory). It
// returns the factories and the informers the runnables watch, for
// checkInformersStarted: those of the runnables added before Run.
func (r *run) startInformers() ([]*factoryEntry, []watchedInformer) {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	r.informersStarted = true
	for _, f := range r.factories {
		f.start(r.log)
	}
	return slices.Clone(r.factories), watchedInformers(slices.Concat(r.others, r.leaders))
}

// startOthers starts the runnables that do not need leader election.
func (r *run) startOthers() {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	r.othersStarted = true
	for _, e := range r.others {
		e.start(r.othersCtx, r.failed)
	}
}

// campaign starts the leader election, or, without one, the leader
// runnables.
func (r *run) campaign() {
	e := r.m.elector
	if e == nil {
		r.startLeaders()
		return
	}
	electionCtx, stop := context.WithCancel(r.base)
	r.cancelElection, r.electionDone, r.wonElection = stop, make(chan struct{}), e.started
	r.log.Info("Campaigning for leadership", "lease", r.m.opts.Lease.Namespace+"/"+r.m.opts.LeaderElection.Name, "id", e.id)
	go func() {
		defer close(r.electionDone)
		e.run(electionCtx)
	}()
}

// startLeaders starts the runnables that need leader election, and those
// added later at once (see late.go).
func (r *run) startLeaders() {
	r.m.mu.Lock()
	defer r.m.mu.Unlock()
	r.leading = true
	r.log.Info("Starting leader runnables", "count", len(r.leaders))
	for _, e := range r.leaders {
		e.start(r.leadersCtx, r.failed)
	}
	r.m.electedOnce.Do(func() { close(r.m.elected) })
}

// waitForStop serves the election until ctx is cancelled, a runnable or
// server fails, or the Lease is lost, and returns why it stopped: nil for
// ctx.
func (r *run) waitForStop(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			r.log.Info("Shutting down", "reason", context.Cause(ctx))
			return nil
		case e := <-r.failed:
			r.log.Error(e.err, "Runnable failed, shutting down", "runnable", e.name)
			return e.err
		case err := <-r.unstarted:
			r.log.Error(err, "Shutting down")
			return err
		case s := <-r.serverFailed:
			r.log.Error(s.err, "Server failed, shutting down", "server", s.name)
			return fmt.Errorf("manager: %s: %w", s.name, s.err)
		case <-r.wonElection:
			r.wonElection = nil
			r.m.leading.Store(true)
			r.startLeaders()
		case <-r.electionDone:
			r.m.leading.Store(false)
			// client-go's elector returns before ctx ends only when it
			// stops renewing (or, never having led, when it crashed).
			r.log.Error(ErrLeaderElectionLost, "Shutting down", "wasLeading", r.leading)
			return ErrLeaderElectionLost
		}
	}
}
