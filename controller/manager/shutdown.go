package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
)

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
		if srv.err != nil && !errors.Is(cause, srv.err) {
			errs = append(errs, fmt.Errorf("manager: %s: %w", srv.name, srv.err))
		}
	}

	// 5. The Lease last: renewed until now, released only if every leader
	// runnable is known to have stopped.
	if s.electionDone != nil {
		s.stopElection()
		electionStopped := s.waitStage("leader election", []waiter{{"leader election", s.electionDone}})
		s.m.leading.Store(false)
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

	for _, e := range slices.Concat(s.leaders, s.others) {
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
