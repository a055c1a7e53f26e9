package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// shutdown stops what r started, in order, waiting for each stage before the
// next until the graceful shutdown deadline, and returns Run's error: cause
// (why Run stopped, nil for its context) joined with what went wrong since.
func (r *run) shutdown(cause error) error {
	r.m.shuttingDown.Store(true)
	r.m.mu.Lock()
	r.stopping = true // from here on r's lists do not change
	r.m.mu.Unlock()
	cancel := r.startDeadline()
	defer cancel()

	leadersStopped := r.stopRunnables()
	r.stopInformerFactories()
	r.stopWebhooks()
	errs := append([]error{cause}, r.stopServers(cause)...)
	errs = append(errs, r.stopElection(cause, leadersStopped))
	r.stopEvents()
	errs = append(errs, r.runnableErrors(cause)...)
	if len(r.stragglers) > 0 {
		errs = append(errs, fmt.Errorf("%w after %s; still running: %s",
			ErrShutdownTimeout, r.m.opts.GracefulShutdownTimeout, strings.Join(r.stragglers, ", ")))
	}
	err := errors.Join(errs...)
	if err != nil {
		r.log.Error(err, "Stopped with errors")
	} else {
		r.log.Info("Stopped")
	}
	return err
}

// startDeadline sets the deadline of the whole shutdown: none for a
// negative GracefulShutdownTimeout.
func (r *run) startDeadline() context.CancelFunc {
	var cancel context.CancelFunc
	if timeout := r.m.opts.GracefulShutdownTimeout; timeout > 0 {
		r.deadline, cancel = context.WithTimeout(context.Background(), timeout)
	} else {
		r.deadline, cancel = context.WithCancel(context.Background())
	}
	return cancel
}

// stopRunnables stops the leader runnables first, since nothing guarded by
// the Lease may outlive it, then the others. It reports whether every leader
// runnable stopped.
func (r *run) stopRunnables() (leadersStopped bool) {
	r.cancelLeaders()
	leadersStopped = r.waitStage("leader runnables", runnableWaiters(r.leaders))
	r.cancelOthers()
	r.waitStage("other runnables", runnableWaiters(r.others))
	return leadersStopped
}

// stopInformerFactories stops the informers, now that nobody reads their
// caches, and shuts down the factories that can.
func (r *run) stopInformerFactories() {
	close(r.stopInformers)
	<-r.checkDone
	var factories []waiter
	for _, f := range r.factories {
		f.halt()
		if !f.started.Load() {
			continue
		}
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
	r.waitStage("informer factories", factories)
}

// stopServers shuts the HTTP endpoints down: probes are answered until
// here, /readyz failing. It returns the servers' errors other than cause.
func (r *run) stopServers(cause error) []error {
	var errs []error
	expiredBefore := r.deadline.Err() != nil
	for _, srv := range r.servers {
		if !srv.shutdown(r.deadline) && !expiredBefore {
			r.stragglers = append(r.stragglers, srv.name)
		}
		if srv.err != nil && !errors.Is(cause, srv.err) {
			errs = append(errs, fmt.Errorf("manager: %s: %w", srv.name, srv.err))
		}
	}
	return errs
}

// stopElection stops renewing the Lease, last, and releases it with
// ReleaseOnCancel after a clean shutdown in which every leader runnable is
// known to have stopped. It returns the release's error.
func (r *run) stopElection(cause error, leadersStopped bool) error {
	if r.electionDone == nil {
		return nil
	}
	r.cancelElection()
	electionStopped := r.waitStage("leader election", []waiter{{"leader election", r.electionDone}})
	r.m.leading.Store(false)
	// client-go turns its gauge off only when renewal fails, not when its
	// context ends.
	leaderMetric{processLeaderMetrics}.Off(r.m.opts.LeaderElection.Name)
	release := r.m.opts.LeaderElection.ReleaseOnCancel && r.leading && !errors.Is(cause, ErrLeaderElectionLost)
	if !release || !leadersStopped || !electionStopped {
		return nil
	}
	ctx, cancel := context.WithTimeout(r.deadline, r.m.opts.Lease.RenewDeadline)
	defer cancel()
	if err := r.m.elector.release(ctx); err != nil {
		return err
	}
	r.log.Info("Released leader lease")
	return nil
}

// stopEvents writes the events recorded so far, the leader election's
// last among them, and stops the event broadcasters.
func (r *run) stopEvents() {
	expiredBefore := r.deadline.Err() != nil
	if !r.m.events.stop(r.deadline) && !expiredBefore {
		r.stragglers = append(r.stragglers, "event broadcasters")
	}
}

// runnableErrors returns the errors of the runnables that failed on their
// own (not by cancellation), other than cause.
func (r *run) runnableErrors(cause error) []error {
	var errs []error
	for _, e := range slices.Concat(r.leaders, r.others, r.webhooks) {
		if !e.started.Load() || !isClosed(e.done) || e.err == nil || errors.Is(e.err, context.Canceled) {
			continue
		}
		if !errors.Is(cause, e.err) {
			errs = append(errs, fmt.Errorf("manager: runnable %s: %w", e.name, e.err))
		}
	}
	return errs
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
func (r *run) waitStage(stage string, ws []waiter) bool {
	expiredBefore := r.deadline.Err() != nil
	for _, w := range ws {
		if expiredBefore {
			break
		}
		select {
		case <-w.done:
		case <-r.deadline.Done():
		}
		if r.deadline.Err() != nil {
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
		r.log.V(1).Info("Shutdown stage done", "stage", stage)
		return true
	}
	if !expiredBefore {
		r.stragglers = append(r.stragglers, stuck...)
	}
	r.log.Info("Shutdown stage did not finish in time", "stage", stage, "running", stuck)
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
