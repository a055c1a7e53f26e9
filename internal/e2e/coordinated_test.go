//go:build e2e

package e2e

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// coordinatedLease is the Lease the coordinated candidates follow.
const coordinatedLease = "coordinated-test"

// TestCoordinatedLeaderElection runs Managers as candidates of the API
// server's coordinated leader election (KEP-4355). The API server picks the
// leader by its OldestEmulationVersion rule, not the first to ask:
//
//   - "new" (binary and emulation 1.6.0) starts alone and is elected;
//   - "old" (binary 1.6.0, emulation 1.5.0) joins: the API server marks the
//     Lease for "old", "new" steps down (Run returns ErrLeaderElectionLost)
//     and "old" leads, never both at once;
//   - "new" restarts as a standby, "old" dies without releasing the Lease,
//     and "new" takes over once the Lease has expired and the API server
//     has found "old" gone.
func TestCoordinatedLeaderElection(t *testing.T) {
	cp := coordinatedCP.get(t)
	ns := newNamespace(t, cp.Client())
	var log leaderLog

	newer := startCoordinated(t, cp.RESTConfig(), ns, "new", "1.6.0", "1.6.0", &log)
	select {
	case <-newer.mgr.Elected():
	case <-time.After(time.Minute):
		t.Fatal("the only candidate was not elected within a minute")
	}

	older := startCoordinated(t, cp.RESTConfig(), ns, "old", "1.6.0", "1.5.0", &log)
	joined := time.Now()
	if err := newer.wait(t, time.Minute); !errors.Is(err, manager.ErrLeaderElectionLost) {
		t.Fatalf("new: Run once old joined = %v, want ErrLeaderElectionLost", err)
	}
	select {
	case <-older.mgr.Elected():
	case <-time.After(time.Minute):
		t.Fatal("old was not elected within a minute of new stepping down")
	}
	t.Logf("old leads %s after it joined", time.Since(joined).Round(time.Millisecond))

	standby := startCoordinated(t, cp.RESTConfig(), ns, "new", "1.6.0", "1.6.0", &log)
	older.cancel() // without ReleaseOnCancel: the Lease is left to expire, as after a crash
	if err := older.wait(t, time.Minute); err != nil {
		t.Fatalf("old: Run after cancel = %v, want nil", err)
	}
	died := time.Now()
	// The Lease expires after leLeaseDuration; the API server's election
	// then pings the candidates and waits up to five seconds for the dead
	// one to answer, and may first re-elect it if it answered a ping less
	// than five seconds before it died.
	const takeoverBound = leLeaseDuration + 30*time.Second
	select {
	case <-standby.mgr.Elected():
	case <-time.After(takeoverBound):
		t.Fatalf("new did not take over within %s of old's death", takeoverBound)
	}
	t.Logf("new took over %s after old died (lease %s)", time.Since(died).Round(time.Millisecond), leLeaseDuration)
	standby.cancel()
	if err := standby.wait(t, time.Minute); err != nil {
		t.Fatalf("new (standby): Run after cancel = %v, want nil", err)
	}

	want := []string{"new", "old", "new"}
	if got := log.leaders(); !equalStrings(got, want) {
		t.Errorf("leaders in order = %v, want %v", got, want)
	}
	if overlap := log.overlap(); overlap != "" {
		t.Errorf("two candidates led at once: %s", overlap)
	}
}

// With the feature gate off (and the API not served), a coordinated
// Manager fails at once with an error that names the gate.
func TestCoordinatedLeaderElectionGateOff(t *testing.T) {
	cp := shardedCP.get(t) // an API server without CoordinatedLeaderElection
	client := cp.Client()
	m, err := manager.New(manager.Options{
		Logger: testr.New(t),
		Lease:  lease.Config{Client: client, Namespace: "default", ID: "gate-off"},
		LeaderElection: manager.LeaderElection{
			Enabled: true, Name: coordinatedLease,
			Coordinated: manager.CoordinatedLeaderElection{Enabled: true, BinaryVersion: "1.0.0"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err = m.Run(ctx)
	if err == nil || !strings.Contains(err.Error(), "CoordinatedLeaderElection") || !strings.Contains(err.Error(), "leasecandidates") {
		t.Fatalf("Run with the gate off = %v, want an error naming leasecandidates and the CoordinatedLeaderElection gate", err)
	}
	t.Logf("Run with the gate off: %v", err)
}

// coordinatedCandidate is one Manager in the coordinated election.
type coordinatedCandidate struct {
	mgr    *manager.Manager
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Run's result, set before done closes
}

func (c *coordinatedCandidate) wait(t *testing.T, d time.Duration) error {
	t.Helper()
	select {
	case <-c.done:
		return c.err
	case <-time.After(d):
		t.Fatalf("Run did not return within %s", d)
		return nil
	}
}

// startCoordinated runs a Manager whose one leader runnable records in log
// when it leads.
func startCoordinated(t *testing.T, config *rest.Config, ns, id, binary, emulation string, log *leaderLog) *coordinatedCandidate {
	t.Helper()
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Options{
		Logger:                  testr.NewWithOptions(t, testr.Options{LogTimestamp: true}).WithValues("candidate", id),
		GracefulShutdownTimeout: 30 * time.Second,
		Lease: lease.Config{
			Client:        client,
			Namespace:     ns,
			ID:            id,
			LeaseDuration: leLeaseDuration,
			RenewDeadline: leRenewDeadline,
			RetryPeriod:   leRetryPeriod,
		},
		LeaderElection: manager.LeaderElection{
			Enabled:     true,
			Name:        coordinatedLease,
			Coordinated: manager.CoordinatedLeaderElection{Enabled: true, BinaryVersion: binary, EmulationVersion: emulation},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(&leaderRunnable{id: id, log: log}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &coordinatedCandidate{mgr: mgr, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = mgr.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-c.done
	})
	return c
}

// leaderRunnable leads until its context ends, recording the interval.
type leaderRunnable struct {
	id  string
	log *leaderLog
}

func (r *leaderRunnable) Name() string             { return "leader-" + r.id }
func (r *leaderRunnable) NeedLeaderElection() bool { return true }
func (r *leaderRunnable) Run(ctx context.Context) error {
	i := r.log.start(r.id)
	<-ctx.Done()
	r.log.stop(i)
	return nil
}

// leaderLog records who led when.
type leaderLog struct {
	mu    sync.Mutex
	terms []term
}

type term struct {
	id          string
	start, stop time.Time // stop is zero while leading
}

func (l *leaderLog) start(id string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.terms = append(l.terms, term{id: id, start: time.Now()})
	return len(l.terms) - 1
}

func (l *leaderLog) stop(i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.terms[i].stop = time.Now()
}

func (l *leaderLog) leaders() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ids []string
	for _, tm := range l.terms {
		ids = append(ids, tm.id)
	}
	return ids
}

// overlap describes the first term that started before the previous one
// stopped, or returns "".
func (l *leaderLog) overlap() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 1; i < len(l.terms); i++ {
		prev, cur := l.terms[i-1], l.terms[i]
		if prev.stop.IsZero() || cur.start.Before(prev.stop) {
			return prev.id + " still led when " + cur.id + " started at " + cur.start.Format(time.StampMicro)
		}
	}
	return ""
}

func equalStrings(a, b []string) bool { return strings.Join(a, ",") == strings.Join(b, ",") }
