package manager

import (
	"context"
	"fmt"
)

// Runnable is anything the Manager runs: a controller, a periodic job, a
// server. Run blocks until ctx is cancelled, then returns once its work has
// stopped. Returning early with a nil error is allowed (the Manager lets it
// go); returning a non-nil error stops the whole Manager.
type Runnable interface {
	Run(ctx context.Context) error
}

// RunnableFunc adapts a function to a Runnable.
type RunnableFunc func(ctx context.Context) error

// Run calls f(ctx).
func (f RunnableFunc) Run(ctx context.Context) error { return f(ctx) }

// The optional interfaces below are found by type assertion, so that
// controller.Controller[K] and hand-written runnables plug in alike.

// Named is implemented by runnables that have a name. Names appear in logs
// and errors and must be unique within one Manager; the empty name counts as
// no name.
type Named interface {
	Name() string
}

// SyncReporter is implemented by runnables whose readiness depends on caches.
// HasSynced reports whether the runnable is working: its caches have synced
// and it is doing its work, as controller.Controller's HasSynced does (false
// before Run has synced them and after Run returns). /readyz fails while a
// started runnable's HasSynced reports false; leader runnables not started
// (on a standby replica) are not asked, so that the standby can be ready.
type SyncReporter interface {
	HasSynced() bool
}

// LeaderElectionRunnable is implemented by runnables that choose whether
// they run only on the elected leader. A runnable that does not implement it
// is treated as needing leader election, because running a writer twice is
// worse than running it late.
type LeaderElectionRunnable interface {
	NeedLeaderElection() bool
}

// runnableName is how a runnable appears in logs and errors.
func runnableName(r Runnable, index int) string {
	if n, ok := r.(Named); ok && n.Name() != "" {
		return n.Name()
	}
	return fmt.Sprintf("runnable #%d (%T)", index, r)
}

// needsLeaderElection applies the default of LeaderElectionRunnable.
func needsLeaderElection(r Runnable) bool {
	if l, ok := r.(LeaderElectionRunnable); ok {
		return l.NeedLeaderElection()
	}
	return true
}
