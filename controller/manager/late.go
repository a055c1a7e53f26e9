package manager

import (
	"context"
	"errors"
	"slices"
)

// Runnables and factories added to a running Manager (Add and
// AddInformerFactory after Run, and the parts of an Optional) join the
// run's lists under m.mu, so that the shutdown, which sets r.stopping
// under m.mu before it reads them, sees each one exactly once.

// errStopping refuses what is added once the shutdown has begun.
var errStopping = errors.New("the Manager is shutting down or has stopped")

// addRunnableLocked adds e to the run and starts it if its kind has
// started: a runnable without leader election once Run has started those,
// a leader runnable while this replica leads. m.mu is held.
func (r *run) addRunnableLocked(e *runnableEntry) {
	if e.leader {
		r.leaders = append(r.leaders, e)
		if r.leading {
			e.start(r.leadersCtx, r.failed)
		}
		return
	}
	r.others = append(r.others, e)
	if r.othersStarted {
		e.start(r.othersCtx, r.failed)
	}
}

// addFactoryLocked adds f to the run and starts it if Run has started the
// factories. m.mu is held.
func (r *run) addFactoryLocked(f *factoryEntry) {
	r.factories = append(r.factories, f)
	if r.informersStarted {
		f.start(r.log)
	}
}

// remove stops runnables and then factories that were added for a while
// (an Optional's parts), waits for them, and forgets them, so that their
// caches can be collected and their names used again. A runnable's error
// is logged, not returned: stopping it was the Manager's choice. During
// the shutdown they are left to it.
func (m *Manager) remove(runnables []*runnableEntry, factories []*factoryEntry) {
	m.mu.Lock()
	for _, e := range runnables {
		e.removed.Store(true)
		if e.cancel != nil {
			e.cancel()
		}
	}
	m.mu.Unlock()
	for _, e := range runnables {
		if !e.started.Load() {
			continue
		}
		<-e.done
		if e.err != nil && !isCanceled(e.err) {
			m.logger.Info("Runnable stopped with an error", "runnable", e.name, "err", e.err.Error())
		}
	}
	for _, f := range factories {
		f.halt()
		if !f.started.Load() {
			continue
		}
		<-f.syncDone
		if sf, ok := f.f.(ShutdownInformerFactory); ok {
			sf.Shutdown()
		}
	}

	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range runnables {
		if n, ok := e.r.(Named); ok && n.Name() != "" {
			delete(m.names, n.Name())
		}
	}
	m.runnables = without(m.runnables, runnables)
	m.factories = without(m.factories, factories)
	if r := m.run; r != nil && !r.stopping {
		r.leaders = without(r.leaders, runnables)
		r.others = without(r.others, runnables)
		r.factories = without(r.factories, factories)
	}
}

// without returns a new slice of list's elements not in drop: the
// shutdown may still hold the old one.
func without[E comparable](list, drop []E) []E {
	kept := make([]E, 0, len(list))
	for _, e := range list {
		if !slices.Contains(drop, e) {
			kept = append(kept, e)
		}
	}
	return kept
}

func isCanceled(err error) bool { return errors.Is(err, context.Canceled) }
