//go:build e2e

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// Short leases, so that a failover takes seconds. The retry period is well
// below the lease, so that a takeover after a release (about one retry
// period) and one after an expiry (about one lease) are far apart.
const (
	leLeaseDuration = 4 * time.Second
	leRenewDeadline = 2 * time.Second
	leRetryPeriod   = 500 * time.Millisecond
)

// Annotations each reconcile writes on its ConfigMap: who wrote, and a
// per-writer sequence number so that every reconcile is a real change.
const (
	writerAnnotation   = "ctrlkit.test/writer"
	writeSeqAnnotation = "ctrlkit.test/write-seq"
)

// TestLeaderElectionFailover runs two Managers campaigning for one Lease,
// each with a controller that keeps reconciling (every key requeued after a
// few milliseconds, each reconcile an API read and write). The leader is
// stopped; the standby must take over within the expected time, and at no
// instant may both reconcile:
//
//   - crash: the leader's context is cancelled without ReleaseOnCancel,
//     so the standby waits for the Lease to expire, as after a crash;
//   - release: with ReleaseOnCancel, the Lease is given up once the
//     leader's controllers have stopped, and the standby takes over
//     within a retry period or so;
//   - partition: the leader can no longer reach its Lease but still
//     reaches everything else, so its controller keeps writing until it
//     notices; it must stop (Run returns ErrLeaderElectionLost) before the
//     standby, which sees the Lease expire, starts.
func TestLeaderElectionFailover(t *testing.T) {
	cp := ourCP.get(t)
	for _, tc := range []struct {
		name    string
		release bool
		// partition cuts the leader off its Lease instead of cancelling it.
		partition bool
		// The window the takeover must fall in, measured from the moment the
		// leader is stopped or cut off to the standby's first reconcile.
		atLeast, atMost time.Duration
	}{
		{
			name: "crash",
			// The leader renews every retry period until it stops, and the
			// standby counts the lease from when it saw the last renewal, so
			// it cannot take over sooner than this (less a margin for the
			// renewal request's own time).
			atLeast: leLeaseDuration - leRetryPeriod - 500*time.Millisecond,
			// Expiry, plus the standby's jittered retry period (up to
			// 2.2×), plus slack for a loaded machine under -race.
			atMost: leLeaseDuration + 3*time.Second,
		},
		{
			name:    "release",
			release: true,
			// Faster than any takeover that waited for the lease to expire.
			atMost: leLeaseDuration - leRetryPeriod - 500*time.Millisecond,
		},
		{
			name:      "partition",
			partition: true,
			// As for a crash: the standby waits for the Lease to expire.
			atLeast: leLeaseDuration - leRetryPeriod - 500*time.Millisecond,
			atMost:  leLeaseDuration + 3*time.Second,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := cp.Client()
			ns := newNamespace(t, client)
			const keys = 3
			for i := range keys {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("target-%d", i)}}
				if _, err := client.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
					t.Fatalf("create ConfigMap: %v", err)
				}
			}
			writes := watchWriters(t, client, ns)
			act := newActivity()
			a := startCandidate(t, cp.RESTConfig(), ns, "candidate-a", tc.release, act)
			b := startCandidate(t, cp.RESTConfig(), ns, "candidate-b", tc.release, act)

			// One of them wins; the other must stay idle while it leads.
			var leader, standby *candidate
			select {
			case <-a.mgr.Elected():
				leader, standby = a, b
			case <-b.mgr.Elected():
				leader, standby = b, a
			case <-time.After(30 * time.Second):
				t.Fatal("neither candidate was elected within 30s")
			}
			t.Logf("%s leads", leader.id)
			testutil.Eventually(t, 30*time.Second, leader.id+" to reconcile every key a few times", func(context.Context) (bool, error) {
				return act.minPerKey(leader.id, keys) >= 3, nil
			})
			if leader.exited() {
				t.Fatalf("%s stopped on its own: %v", leader.id, leader.err)
			}
			if hasClosed(standby.mgr.Elected()) || act.reconciles(standby.id) > 0 {
				t.Fatalf("%s was elected too while %s led", standby.id, leader.id)
			}

			stoppedAt := time.Now()
			if tc.partition {
				leader.partitioned.Store(true)
				if err := leader.wait(t); !errors.Is(err, manager.ErrLeaderElectionLost) {
					t.Fatalf("%s: Run cut off from its Lease = %v, want ErrLeaderElectionLost", leader.id, err)
				}
			} else {
				leader.stop()
				if err := leader.wait(t); err != nil {
					t.Fatalf("%s: Run after cancel = %v, want nil", leader.id, err)
				}
			}
			testutil.Eventually(t, tc.atMost+10*time.Second, standby.id+" to take over and reconcile every key a few times", func(context.Context) (bool, error) {
				return act.minPerKey(standby.id, keys) >= 3, nil
			})
			standby.stop()
			if err := standby.wait(t); err != nil {
				t.Fatalf("%s: Run after cancel = %v, want nil", standby.id, err)
			}

			if overlaps := act.overlapsSeen(); len(overlaps) > 0 {
				t.Errorf("both candidates reconciled at once %d times, e.g. %s", len(overlaps), overlaps[0])
			}
			leaderLast, standbyFirst := act.lastEnd(leader.id), act.firstStart(standby.id)
			if !leaderLast.Before(standbyFirst) {
				t.Errorf("%s reconciled until %s, after %s started at %s", leader.id,
					leaderLast.Format(time.StampMicro), standby.id, standbyFirst.Format(time.StampMicro))
			}
			takeover := standbyFirst.Sub(stoppedAt)
			how := "stopped"
			if tc.partition {
				how = "cut off from its Lease"
			}
			t.Logf("%s took over %s after %s was %s (its last reconcile ended %s after that); %d and %d reconciles",
				standby.id, takeover.Round(time.Millisecond), leader.id, how, leaderLast.Sub(stoppedAt).Round(time.Millisecond),
				act.reconciles(leader.id), act.reconciles(standby.id))
			if takeover < tc.atLeast || takeover > tc.atMost {
				t.Errorf("takeover took %s, want between %s and %s (lease %s, retry %s, release on cancel %v)",
					takeover, tc.atLeast, tc.atMost, leLeaseDuration, leRetryPeriod, tc.release)
			}

			// What the API server saw: each ConfigMap written by the first
			// leader, then by the second, and never by the first again. The
			// watch may lag behind the last writes.
			testutil.Eventually(t, 30*time.Second, "the watch to show "+standby.id+"'s writes to every ConfigMap", func(context.Context) (bool, error) {
				seqs := writes()
				for i := range keys {
					if seq := seqs[fmt.Sprintf("target-%d", i)]; !slices.Contains(seq, standby.id) {
						return false, nil
					}
				}
				return true, nil
			})
			for name, seq := range writes() {
				if want := []string{leader.id, standby.id}; !slices.Equal(writerRuns(seq), want) {
					t.Errorf("ConfigMap %s: writers in order %v, want %v", name, writerRuns(seq), want)
				}
			}
		})
	}
}

// candidate is one Manager campaigning for the test's Lease.
type candidate struct {
	id     string
	mgr    *manager.Manager
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Run's result, set before done closes
	// partitioned fails the candidate's Lease requests; its other requests
	// still go through.
	partitioned atomic.Bool
}

// errPartitioned is what a partitioned candidate's Lease requests return.
var errPartitioned = errors.New("test partition: the Lease is unreachable")

// startCandidate runs a Manager with one controller that reconciles every
// ConfigMap of ns over and over, recording each reconcile in act.
func startCandidate(t *testing.T, config *rest.Config, ns, id string, release bool, act *activity) *candidate {
	t.Helper()
	c := &candidate{id: id, done: make(chan struct{})}
	config.Wrap(func(next http.RoundTripper) http.RoundTripper {
		return &partitionTransport{cut: &c.partitioned, next: next}
	})
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	logger := testr.NewWithOptions(t, testr.Options{LogTimestamp: true}).WithValues("candidate", id)
	mgr, err := manager.New(manager.Options{
		Logger:                  logger,
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
			Enabled:         true,
			Name:            "failover-test",
			ReleaseOnCancel: release,
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	r := &recordingReconciler{id: id, client: client, act: act}
	ctrl, err := controller.New("failover-"+id, controller.Reconciler[string](r), controller.Options[string]{
		Workers: 2,
		Logger:  logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.Watch(factory.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
		t.Fatal(err)
	}
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(ctrl); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	c.mgr, c.cancel = mgr, cancel
	go func() {
		defer close(c.done)
		c.err = mgr.Run(ctx)
	}()
	// A test that fails early must not leave a Manager running (and
	// logging through t) after it ends.
	t.Cleanup(func() {
		c.stop()
		<-c.done
	})
	return c
}

// stop cancels the Manager's context: for a Manager without
// ReleaseOnCancel, the Lease is left to expire, as after a crash.
func (c *candidate) stop() { c.cancel() }

// wait returns Run's result once it has returned.
func (c *candidate) wait(t *testing.T) error {
	t.Helper()
	select {
	case <-c.done:
		return c.err
	case <-time.After(time.Minute):
		t.Fatalf("%s: Run did not return within a minute of its cancellation", c.id)
		return nil
	}
}

func (c *candidate) exited() bool { return hasClosed(c.done) }

// partitionTransport fails Lease requests while cut is set.
type partitionTransport struct {
	cut  *atomic.Bool
	next http.RoundTripper
}

func (p *partitionTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if p.cut.Load() && strings.Contains(req.URL.Path, "/leases/") {
		return nil, errPartitioned
	}
	return p.next.RoundTrip(req)
}

func hasClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// recordingReconciler marks itself active in act for the whole of each
// reconcile, in which it reads its ConfigMap and writes its own name into
// it, and asks to be called again soon: a controller that never idles.
type recordingReconciler struct {
	id     string
	client kubernetes.Interface
	act    *activity
	seq    int // guarded by act.mu
}

func (r *recordingReconciler) Reconcile(ctx context.Context, key string) (controller.Result, error) {
	seq := r.act.enter(r.id, key, &r.seq)
	defer r.act.exit(r.id)
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return controller.Result{}, controller.TerminalError(err)
	}
	cm, err := r.client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return controller.Result{}, err
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[writerAnnotation] = r.id
	cm.Annotations[writeSeqAnnotation] = strconv.Itoa(seq)
	if _, err := r.client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		return controller.Result{}, err
	}
	return controller.Result{RequeueAfter: 10 * time.Millisecond}, nil
}

// activity is the shared record of who is reconciling. enter checks, under
// the same lock that marks a candidate active, that no other candidate is.
type activity struct {
	mu       sync.Mutex
	active   map[string]int // candidate → reconciles in flight
	perKey   map[string]map[string]int
	first    map[string]time.Time // candidate → start of its first reconcile
	last     map[string]time.Time // candidate → end of its latest reconcile
	overlaps []string
}

func newActivity() *activity {
	return &activity{
		active: map[string]int{},
		perKey: map[string]map[string]int{},
		first:  map[string]time.Time{},
		last:   map[string]time.Time{},
	}
}

// enter marks id active for key, notes any other active candidate, and
// returns id's next write sequence number.
func (a *activity) enter(id, key string, seq *int) int {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	for other, n := range a.active {
		if other != id && n > 0 {
			a.overlaps = append(a.overlaps, fmt.Sprintf("%s started %s at %s while %s had %d in flight",
				id, key, now.Format(time.StampMicro), other, n))
		}
	}
	a.active[id]++
	if a.perKey[id] == nil {
		a.perKey[id] = map[string]int{}
		a.first[id] = now
	}
	a.perKey[id][key]++
	*seq++
	return *seq
}

func (a *activity) exit(id string) {
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	a.active[id]--
	a.last[id] = now
}

// minPerKey is the fewest reconciles id has made of any of the n keys.
func (a *activity) minPerKey(id string, n int) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.perKey[id]) < n {
		return 0
	}
	least := -1
	for _, c := range a.perKey[id] {
		if least < 0 || c < least {
			least = c
		}
	}
	return least
}

func (a *activity) reconciles(id string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	total := 0
	for _, c := range a.perKey[id] {
		total += c
	}
	return total
}

func (a *activity) firstStart(id string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.first[id]
}

func (a *activity) lastEnd(id string) time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last[id]
}

func (a *activity) overlapsSeen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.overlaps)
}

// watchWriters records, per ConfigMap of ns, the writer of each update the
// API server reports, from now until the test ends. The returned function
// gives the sequences seen so far.
func watchWriters(t *testing.T, client kubernetes.Interface, ns string) func() map[string][]string {
	t.Helper()
	list, err := client.CoreV1().ConfigMaps(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list ConfigMaps: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := client.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		cancel()
		t.Fatalf("watch ConfigMaps: %v", err)
	}
	var (
		mu      sync.Mutex
		seqs    = map[string][]string{}
		watchEr error
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				mu.Lock()
				watchEr = errorFromWatch(ev)
				mu.Unlock()
				continue
			}
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if !ok || ev.Type != watch.Modified {
				continue
			}
			if writer := cm.Annotations[writerAnnotation]; writer != "" {
				mu.Lock()
				seqs[cm.Name] = append(seqs[cm.Name], writer)
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() {
		w.Stop()
		cancel()
		<-done
	})
	return func() map[string][]string {
		mu.Lock()
		defer mu.Unlock()
		if watchEr != nil {
			t.Errorf("watching ConfigMaps: %v", watchEr)
		}
		if hasClosed(done) && !errors.Is(ctx.Err(), context.Canceled) {
			t.Errorf("the ConfigMap watch ended early: writers may be missing")
		}
		out := make(map[string][]string, len(seqs))
		for k, v := range seqs {
			out[k] = slices.Clone(v)
		}
		return out
	}
}

// writerRuns collapses runs of the same writer: [a a b b] → [a b].
func writerRuns(seq []string) []string { return slices.Compact(slices.Clone(seq)) }
