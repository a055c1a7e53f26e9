package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	started atomic.Bool
	done    chan struct{} // closed when Run has returned
	err     error         // Run's result, set before done closes
}

// start runs the runnable in its own goroutine and sends it on failed if
// it returns an error.
func (e *runnableEntry) start(ctx context.Context, failed chan<- *runnableEntry) {
	e.started.Store(true)
	go func() {
		defer close(e.done)
		e.err = e.r.Run(ctx)
		if e.err != nil {
			failed <- e // buffered for every runnable: never blocks
		}
	}()
}

// factoryEntry is one added informer factory.
type factoryEntry struct {
	name     string
	f        InformerFactory
	synced   atomic.Bool
	syncDone chan struct{} // closed when WaitForCacheSync has returned
}

// start starts the factory's informers and records when they have synced.
func (f *factoryEntry) start(stop <-chan struct{}, log logr.Logger) {
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
	r.startInformers()
	go r.checkInformersStarted(watchedInformers(slices.Concat(r.others, r.leaders)))
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
	stopInformers chan struct{}
	checkDone     chan struct{} // closed when checkInformersStarted has returned
	unstarted     chan error    // watched informers nothing started; buffered

	webhooks                    []*runnableEntry // started first, stopped after the informers
	cancelWebhooks              context.CancelFunc
	leaders, others             []*runnableEntry
	leadersCtx                  context.Context
	cancelLeaders, cancelOthers context.CancelFunc
	failed                      chan *runnableEntry // buffered for every runnable

	wonElection    <-chan struct{} // nil without leader election, or once won
	electionDone   chan struct{}   // nil without leader election
	cancelElection context.CancelFunc
	leading        bool // leader runnables started: the Lease won, or no election

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
// requested later waits for another Start (see InformerFactory).
func (r *run) startInformers() {
	for _, f := range r.factories {
		f.start(r.stopInformers, r.log)
	}
}

// startOthers starts the runnables that do not need leader election.
func (r *run) startOthers() {
	var ctx context.Context
	ctx, r.cancelOthers = context.WithCancel(r.base)
	for _, e := range r.others {
		e.start(ctx, r.failed)
	}
}

// campaign starts the leader election, or, without one, the leader
// runnables.
func (r *run) campaign() {
	r.leadersCtx, r.cancelLeaders = context.WithCancel(r.base)
	e := r.m.elector
	if e == nil {
		r.leading = true
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

// startLeaders starts the runnables that need leader election.
func (r *run) startLeaders() {
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
			r.leading = true
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
