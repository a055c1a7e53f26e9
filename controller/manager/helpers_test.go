package manager

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"go.uber.org/goleak"
	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// recorder collects events from several goroutines in order.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) add(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// fakeRunnable implements Runnable and every optional interface.
type fakeRunnable struct {
	name   string
	leader bool
	synced atomic.Bool
	rec    *recorder

	started chan struct{} // closed when Run starts
	// onStop, if set, runs after ctx is cancelled and before Run returns.
	onStop func()
	// stuck, if set, keeps Run from returning until it is closed.
	stuck chan struct{}
	// fail, if set, makes Run return the error it receives.
	fail chan error
	// active, if set, counts runnables inside Run (leader exclusion tests).
	active    *atomic.Int32
	maxActive *atomic.Int32

	done chan struct{} // closed when Run returns
}

func newFake(name string, leader bool, rec *recorder) *fakeRunnable {
	return &fakeRunnable{name: name, leader: leader, rec: rec, started: make(chan struct{}), done: make(chan struct{})}
}

// stopped is closed when Run has returned.
func (f *fakeRunnable) stopped() <-chan struct{} { return f.done }

func (f *fakeRunnable) Name() string             { return f.name }
func (f *fakeRunnable) NeedLeaderElection() bool { return f.leader }
func (f *fakeRunnable) HasSynced() bool          { return f.synced.Load() }

func (f *fakeRunnable) Run(ctx context.Context) error {
	defer close(f.done)
	if f.active != nil {
		n := f.active.Add(1)
		for {
			m := f.maxActive.Load()
			if n <= m || f.maxActive.CompareAndSwap(m, n) {
				break
			}
		}
		defer f.active.Add(-1)
	}
	if f.rec != nil {
		f.rec.add("start " + f.name)
	}
	close(f.started)
	select {
	case <-ctx.Done():
	case err := <-f.fail:
		return err
	}
	if f.onStop != nil {
		f.onStop()
	}
	if f.stuck != nil {
		<-f.stuck
	}
	if f.rec != nil {
		f.rec.add("stop " + f.name)
	}
	return nil
}

// fakeFactory is an InformerFactory whose sync the test controls.
type fakeFactory struct {
	rec        *recorder
	sync       chan struct{} // closed by the test to report synced
	started    chan struct{}
	onShutdown func()
	stopCh     <-chan struct{}
	once       sync.Once

	shutdown     chan struct{} // closed when Shutdown has returned
	shutdownOnce sync.Once
}

func newFakeFactory(rec *recorder) *fakeFactory {
	return &fakeFactory{rec: rec, sync: make(chan struct{}), started: make(chan struct{}), shutdown: make(chan struct{})}
}

// shutDown is closed when Shutdown has returned.
func (f *fakeFactory) shutDown() <-chan struct{} { return f.shutdown }

// Start is idempotent, as client-go's: only the first call starts.
func (f *fakeFactory) Start(stopCh <-chan struct{}) {
	f.once.Do(func() {
		f.stopCh = stopCh
		if f.rec != nil {
			f.rec.add("start informers")
		}
		close(f.started)
	})
}

func (f *fakeFactory) WaitForCacheSync(stopCh <-chan struct{}) bool {
	select {
	case <-f.sync:
		return true
	case <-stopCh:
		return false
	}
}

func (f *fakeFactory) Shutdown() {
	<-f.stopCh
	if f.onShutdown != nil {
		f.onShutdown()
	}
	if f.rec != nil {
		f.rec.add("stop informers")
	}
	f.shutdownOnce.Do(func() { close(f.shutdown) })
}

// leaseHolder reads who holds the Lease "ns/name", "" if nobody.
func leaseHolder(t *testing.T, c kubernetes.Interface, ns, name string) string {
	t.Helper()
	l, err := c.CoordinationV1().Leases(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get lease: %v", err)
	}
	return holderOf(l)
}

func holderOf(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// runInBackground starts m.Run and returns a channel with its result.
func runInBackground(ctx context.Context, m *Manager) <-chan error {
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	return done
}

// runUntilIdle runs m inside a synctest bubble until every goroutine is
// blocked, then cancels it and fails t unless Run returns nil.
func runUntilIdle(t *testing.T, m *Manager) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := runInBackground(ctx, m)
	synctest.Wait()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// quiet is a logger that drops everything. (logr.Discard has a nil sink,
// which Options reads as "use the default".)
func quiet() logr.Logger { return funcr.New(func(string, string) {}, funcr.Options{}) }

func equal(a, b []string) bool { return slices.Equal(a, b) }

func mustAdd(t *testing.T, m *Manager, rs ...Runnable) {
	t.Helper()
	for _, r := range rs {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
}

// probe calls h in-process, without a network: usable inside synctest.
func probe(h http.Handler, target string) (int, string) {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, target, nil))
	return w.Code, w.Body.String()
}

// withOptimisticConcurrency makes the fake clientset treat Leases as the API
// server does: every write bumps resourceVersion, and an update carrying a
// stale one fails with a conflict. Without it, two candidates that read the
// same free Lease could both update it and both lead.
func withOptimisticConcurrency(client *fake.Clientset) *fake.Clientset {
	var version atomic.Int64 // reactors run under the fake's lock; atomic for the race detector's sake
	next := func() string { return strconv.FormatInt(version.Add(1), 10) }
	client.PrependReactor("create", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		a.(k8stesting.CreateAction).GetObject().(*coordinationv1.Lease).ResourceVersion = next()
		return false, nil, nil // the tracker stores it
	})
	client.PrependReactor("update", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
		lease := a.(k8stesting.UpdateAction).GetObject().(*coordinationv1.Lease)
		stored, err := client.Tracker().Get(coordinationv1.SchemeGroupVersion.WithResource("leases"), lease.Namespace, lease.Name)
		if err != nil {
			return true, nil, err
		}
		if rv := stored.(*coordinationv1.Lease).ResourceVersion; rv != lease.ResourceVersion {
			return true, nil, apierrors.NewConflict(coordinationv1.Resource("leases"), lease.Name,
				fmt.Errorf("resourceVersion %q is stale, stored %q", lease.ResourceVersion, rv))
		}
		lease.ResourceVersion = next()
		return false, nil, nil
	})
	return client
}
