package manager

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/go-logr/logr"
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
	m.mu.Lock()
	if m.started {
		m.mu.Unlock()
		return errors.New("manager: Run called twice")
	}
	m.started = true
	runnables, factories := m.runnables, m.factories
	m.mu.Unlock()

	log := m.logger
	servers, err := m.listen()
	if err != nil {
		return err
	}
	serverFailed := make(chan *server, len(servers))
	for _, s := range servers {
		log.Info("Serving", "server", s.name, "addr", s.l.Addr().String())
		s.serve(serverFailed)
	}

	// Runnables see ctx's values but not its cancellation: the Manager
	// cancels them itself, in order.
	base := logr.NewContext(context.WithoutCancel(ctx), log)

	stopInformers := make(chan struct{})
	for _, f := range factories {
		f.start(stopInformers, log)
	}

	failed := make(chan *runnableEntry, len(runnables))
	othersCtx, stopOthers := context.WithCancel(base)
	defer stopOthers()
	leadersCtx, stopLeaders := context.WithCancel(base)
	defer stopLeaders()
	var leaders, others []*runnableEntry
	for _, e := range runnables {
		if e.leader {
			leaders = append(leaders, e)
		} else {
			others = append(others, e)
			e.start(othersCtx, failed)
		}
	}
	startLeaders := func() {
		log.Info("Starting leader runnables", "count", len(leaders))
		for _, e := range leaders {
			e.start(leadersCtx, failed)
		}
		m.electedOnce.Do(func() { close(m.elected) })
	}

	var (
		electionCtx  context.Context
		stopElection context.CancelFunc = func() {}
		electionDone chan struct{}
		wonElection  <-chan struct{}
	)
	if m.elector != nil {
		electionCtx, stopElection = context.WithCancel(base)
		electionDone = make(chan struct{})
		wonElection = m.elector.started
		log.Info("Campaigning for leadership", "lease", m.opts.LeaderElection.Namespace+"/"+m.opts.LeaderElection.Name, "id", m.elector.id)
		go func() {
			defer close(electionDone)
			m.elector.run(electionCtx)
		}()
	} else {
		startLeaders()
	}
	defer stopElection()

	var cause error
	leading := m.elector == nil
	for cause == nil && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case e := <-failed:
			cause = e.err
			log.Error(e.err, "Runnable failed, shutting down", "runnable", e.name)
		case s := <-serverFailed:
			cause = fmt.Errorf("manager: %s: %w", s.name, s.err)
			log.Error(s.err, "Server failed, shutting down", "server", s.name)
		case <-wonElection:
			wonElection = nil
			leading = true
			m.leading.Store(true)
			startLeaders()
		case <-electionDone:
			m.leading.Store(false)
			// client-go's elector returns before ctx ends only when it
			// stops renewing (or, never having led, when it crashed).
			cause = ErrLeaderElectionLost
			log.Error(cause, "Shutting down", "wasLeading", leading)
		}
	}
	if cause == nil {
		log.Info("Shutting down", "reason", context.Cause(ctx))
	}

	sd := shutdown{
		m:            m,
		log:          log,
		leaders:      leaders,
		others:       others,
		factories:    factories,
		servers:      servers,
		stopLeaders:  stopLeaders,
		stopOthers:   stopOthers,
		stopInformer: func() { close(stopInformers) },
		stopElection: stopElection,
		electionDone: electionDone,
		release: m.elector != nil && m.opts.LeaderElection.ReleaseOnCancel &&
			leading && !errors.Is(cause, ErrLeaderElectionLost),
	}
	return sd.run(cause)
}
