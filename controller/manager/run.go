package manager

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/go-logr/logr"
)

// runnableEntry is one added runnable and, once started, its goroutine.
type runnableEntry struct {
	name    string
	r       Runnable
	leader  bool         // runs only while elected
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
	for _, s := range servers {
		log.Info("Serving", "server", s.name, "addr", s.l.Addr().String())
		s.serve()
	}

	// Runnables see ctx's values but not its cancellation: the Manager
	// cancels them itself, in order.
	base := logr.NewContext(context.WithoutCancel(ctx), log)

	stopInformers := make(chan struct{})
	for _, f := range factories {
		f.f.Start(stopInformers)
		go func() {
			defer close(f.syncDone)
			if f.f.WaitForCacheSync(stopInformers) {
				f.synced.Store(true)
				log.V(2).Info("Informer caches synced", "factory", f.name)
			}
		}()
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
		case <-wonElection:
			wonElection = nil
			leading = true
			startLeaders()
		case <-electionDone:
			cause = ErrLeaderElectionLost
			log.Error(cause, "Shutting down")
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

// shutdown is the ordered stop sequence of Run.
type shutdown struct {
	m            *Manager
	log          logr.Logger
	leaders      []*runnableEntry
	others       []*runnableEntry
	factories    []*factoryEntry
	servers      []*server
	stopLeaders  func()
	stopOthers   func()
	stopInformer func()
	stopElection func()
	electionDone <-chan struct{} // nil without leader election
	release      bool            // give up the Lease at the end if all went well

	deadline   context.Context
	stragglers []string
}

func (s *shutdown) run(cause error) error {
	s.m.shuttingDown.Store(true)
	timeout := s.m.opts.GracefulShutdownTimeout
	var cancel context.CancelFunc
	if timeout > 0 {
		s.deadline, cancel = context.WithTimeout(context.Background(), timeout)
	} else {
		s.deadline, cancel = context.WithCancel(context.Background())
	}
	defer cancel()
	errs := []error{cause}

	// 1. Leader runnables first: nothing guarded by the Lease may outlive it.
	s.stopLeaders()
	leadersStopped := s.waitStage("leader runnables", runnableWaiters(s.leaders))

	// 2. The other runnables.
	s.stopOthers()
	s.waitStage("other runnables", runnableWaiters(s.others))

	// 3. Informers, now that nobody reads their caches.
	s.stopInformer()
	var factories []waiter
	for _, f := range s.factories {
		done := make(chan struct{})
		go func() {
			defer close(done)
			<-f.syncDone
			if sf, ok := f.f.(ShutdownInformerFactory); ok {
				sf.Shutdown()
			}
		}()
		factories = append(factories, waiter{f.name, done})
	}
	s.waitStage("informer factories", factories)

	// 4. The HTTP endpoints: probes are answered until here (readyz failing).
	expiredBefore := s.deadline.Err() != nil
	for _, srv := range s.servers {
		if !srv.shutdown(s.deadline) && !expiredBefore {
			s.stragglers = append(s.stragglers, srv.name)
		}
		if srv.err != nil {
			errs = append(errs, fmt.Errorf("manager: %s: %w", srv.name, srv.err))
		}
	}

	// 5. The Lease last: renewed until now, released only if every leader
	// runnable is known to have stopped.
	if s.electionDone != nil {
		s.stopElection()
		electionStopped := s.waitStage("leader election", []waiter{{"leader election", s.electionDone}})
		if s.release && leadersStopped && electionStopped {
			ctx, cancelRelease := context.WithTimeout(s.deadline, s.m.opts.LeaderElection.RenewDeadline)
			if err := s.m.elector.release(ctx); err != nil {
				errs = append(errs, err)
			} else {
				s.log.Info("Released leader lease")
			}
			cancelRelease()
		}
	}

	for _, e := range append(s.leaders, s.others...) {
		if !e.started.Load() || !isClosed(e.done) || e.err == nil || errors.Is(e.err, context.Canceled) {
			continue
		}
		if !errors.Is(cause, e.err) {
			errs = append(errs, fmt.Errorf("manager: runnable %s: %w", e.name, e.err))
		}
	}
	if len(s.stragglers) > 0 {
		errs = append(errs, fmt.Errorf("%w after %s; still running: %s", ErrShutdownTimeout, timeout, strings.Join(s.stragglers, ", ")))
	}
	err := errors.Join(errs...)
	if err != nil {
		s.log.Error(err, "Stopped with errors")
	} else {
		s.log.Info("Stopped")
	}
	return err
}

// waiter is something a shutdown stage waits for.
type waiter struct {
	name string
	done <-chan struct{}
}

func runnableWaiters(entries []*runnableEntry) []waiter {
	var ws []waiter
	for _, e := range entries {
		if e.started.Load() {
			ws = append(ws, waiter{e.name, e.done})
		}
	}
	return ws
}

// waitStage waits for every waiter until the deadline and reports whether
// all finished. If the deadline passes during the stage, those still running
// are named in the timeout error. If it had passed before, the stage gets no
// time and nobody in it is blamed: they were stopped, not waited for.
func (s *shutdown) waitStage(stage string, ws []waiter) bool {
	expiredBefore := s.deadline.Err() != nil
	for _, w := range ws {
		if expiredBefore {
			break
		}
		select {
		case <-w.done:
		case <-s.deadline.Done():
		}
		if s.deadline.Err() != nil {
			break
		}
	}
	var stuck []string
	for _, w := range ws {
		if !isClosed(w.done) {
			stuck = append(stuck, w.name)
		}
	}
	if len(stuck) == 0 {
		s.log.V(1).Info("Shutdown stage done", "stage", stage)
		return true
	}
	if !expiredBefore {
		s.stragglers = append(s.stragglers, stuck...)
	}
	s.log.Info("Shutdown stage did not finish in time", "stage", stage, "running", stuck)
	return false
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
