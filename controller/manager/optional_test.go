package manager

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/internal/crdwatch"
	"github.com/ctrlkit/ctrlkit/controller/typed"
)

var (
	monitors = schema.GroupVersionResource{Group: "monitoring.example.com", Version: "v1", Resource: "servicemonitors"}
	routes   = schema.GroupVersionResource{Group: "gateway.example.com", Version: "v1", Resource: "httproutes"}
)

// fakeCRDs is a cluster's CustomResourceDefinitions, for the Manager's CRD
// informer.
type fakeCRDs struct {
	t       *testing.T
	tracker k8stesting.ObjectTracker
}

func newFakeCRDs(t *testing.T, served ...schema.GroupVersionResource) *fakeCRDs {
	scheme := runtime.NewScheme()
	if err := typed.AddToScheme[*crdwatch.CRD](scheme, crdwatch.Resource); err != nil {
		t.Fatal(err)
	}
	f := &fakeCRDs{t: t, tracker: k8stesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())}
	for _, r := range served {
		f.install(r)
	}
	return f
}

// install creates r's CRD, Established and serving r's version.
func (f *fakeCRDs) install(r schema.GroupVersionResource) {
	f.t.Helper()
	crd := &crdwatch.CRD{
		ObjectMeta: metav1.ObjectMeta{Name: crdwatch.Name(r.GroupResource())},
		Spec: crdwatch.CRDSpec{Group: r.Group, Names: crdwatch.CRDNames{Plural: r.Resource},
			Versions: []crdwatch.CRDVersion{{Name: r.Version, Served: true}}},
		Status: crdwatch.CRDStatus{Conditions: []crdwatch.CRDCondition{{Type: "Established", Status: "True"}}},
	}
	if err := f.tracker.Create(crdwatch.Resource.GroupVersionResource(), crd, ""); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeCRDs) uninstall(r schema.GroupVersionResource) {
	f.t.Helper()
	if err := f.tracker.Delete(crdwatch.Resource.GroupVersionResource(), "", crdwatch.Name(r.GroupResource())); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fakeCRDs) newTracker() (*crdwatch.Tracker, error) {
	gvr, gvk := crdwatch.Resource.GroupVersionResource(), crdwatch.Resource.GroupVersionKind()
	// The object tracker's watch does not stream the initial list.
	return crdwatch.New(cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return f.tracker.List(gvr, gvk, "", opts)
		},
		WatchFuncWithContext: func(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			return f.tracker.Watch(gvr, "", opts)
		},
	}, noWatchList{})), nil
}

type noWatchList struct{}

func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// errorLog is a logger that counts Error calls and drops the rest.
type errorLog struct {
	mu     sync.Mutex
	errors []string
}

func (l *errorLog) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		if strings.Contains(args, `"error"=`) || strings.Contains(args, `"error":`) {
			l.mu.Lock()
			l.errors = append(l.errors, args)
			l.mu.Unlock()
		}
	}, funcr.Options{})
}

func (l *errorLog) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.errors...)
}

// part is what one Optional's Setup builds: a factory and a runnable, new
// each time.
type part struct {
	name   string
	leader bool
	setups atomic.Int32
	mu     sync.Mutex
	last   *fakeRunnable
	lastF  *fakeFactory
}

func (p *part) setup(reg Registrar) error {
	p.setups.Add(1)
	r, f := newFake(p.name, p.leader, nil), newFakeFactory(nil)
	close(f.sync)
	r.synced.Store(true)
	p.mu.Lock()
	p.last, p.lastF = r, f
	p.mu.Unlock()
	if err := reg.AddInformerFactory(f); err != nil {
		return err
	}
	return reg.Add(r)
}

func (p *part) current() (*fakeRunnable, *fakeFactory) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last, p.lastF
}

// running reports whether the part's last runnable runs.
func (p *part) running() bool {
	r, _ := p.current()
	return r != nil && isClosed(r.started) && !isClosed(r.stopped())
}

func watchedMetric(t *testing.T, m *Manager, name string, r schema.GroupVersionResource) float64 {
	t.Helper()
	metric, ok := metricValue(t, m.Registry(), optionalMetricName, map[string]string{"optional": name, "resource": resourceName(r)})
	if !ok {
		t.Fatalf("no %s for %s %s", optionalMetricName, name, resourceName(r))
	}
	return metric.GetGauge().GetValue()
}

func readyzVerbose(t *testing.T, m *Manager) string {
	t.Helper()
	code, body := probe(m.readyz.handler("/readyz"), "/readyz?verbose")
	if code != 200 {
		t.Errorf("/readyz = %d %q, want 200", code, body)
	}
	return body
}

// An Optional part runs only while its CRD is served: absent at start, the
// Manager is ready and quiet; installed, the part starts; deleted, it
// stops, its factory shut down and its runnable's name free again;
// installed again, Setup builds it anew.
func TestOptionalFollowsItsCRD(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		crds := newFakeCRDs(t)
		var errs errorLog
		m := mustNew(t, Options{Logger: errs.logger()})
		m.newCRDTracker = crds.newTracker
		p := &part{name: "monitor-controller"}
		if err := m.AddOptional(Optional{Name: "monitoring", Resources: []schema.GroupVersionResource{monitors}, Setup: p.setup}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		synctest.Wait()
		if n := p.setups.Load(); n != 0 {
			t.Fatalf("Setup ran %d times without the CRD", n)
		}
		if body := readyzVerbose(t, m); !strings.Contains(body, "[+]optional-monitoring ok: not watching: not served: "+resourceName(monitors)) {
			t.Errorf("/readyz?verbose without the CRD:\n%s", body)
		}
		if v := watchedMetric(t, m, "monitoring", monitors); v != 0 {
			t.Errorf("metric without the CRD = %v, want 0", v)
		}

		for round := 1; round <= 2; round++ {
			crds.install(monitors)
			synctest.Wait()
			if !p.running() {
				t.Fatalf("round %d: the part does not run with its CRD installed", round)
			}
			if body := readyzVerbose(t, m); !strings.Contains(body, "[+]optional-monitoring ok: watching "+resourceName(monitors)) {
				t.Errorf("round %d: /readyz?verbose with the CRD:\n%s", round, body)
			}
			if v := watchedMetric(t, m, "monitoring", monitors); v != 1 {
				t.Errorf("round %d: metric with the CRD = %v, want 1", round, v)
			}

			crds.uninstall(monitors)
			synctest.Wait()
			r, f := p.current()
			if !isClosed(r.stopped()) {
				t.Fatalf("round %d: the part's runnable runs on after its CRD was deleted", round)
			}
			if !isClosed(f.shutDown()) {
				t.Errorf("round %d: the part's factory was not shut down", round)
			}
			if v := watchedMetric(t, m, "monitoring", monitors); v != 0 {
				t.Errorf("round %d: metric after the CRD went = %v, want 0", round, v)
			}
		}
		if n := p.setups.Load(); n != 2 {
			t.Errorf("Setup ran %d times, want 2 (once per appearance)", n)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if e := errs.get(); len(e) > 0 {
			t.Errorf("errors logged: %q", e)
		}
	})
}

// Two parts, one served at start: it runs at once; the other starts when
// its CRD is installed; the Manager's shutdown stops both.
func TestOptionalTwoParts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		crds := newFakeCRDs(t, monitors)
		m := mustNew(t, Options{Logger: quiet()})
		m.newCRDTracker = crds.newTracker
		pm, pr := &part{name: "monitors"}, &part{name: "routes", leader: true}
		for _, o := range []Optional{
			{Name: "monitoring", Resources: []schema.GroupVersionResource{monitors}, Setup: pm.setup},
			{Name: "gateway", Resources: []schema.GroupVersionResource{routes, monitors}, Setup: pr.setup},
		} {
			if err := m.AddOptional(o); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		synctest.Wait()
		if !pm.running() || pr.setups.Load() != 0 {
			t.Fatalf("at start: monitors running %v, routes set up %d times; want true, 0", pm.running(), pr.setups.Load())
		}
		crds.install(routes)
		synctest.Wait()
		if !pm.running() || !pr.running() {
			t.Fatalf("with both CRDs: monitors running %v, routes %v", pm.running(), pr.running())
		}
		crds.uninstall(monitors) // both parts need it
		synctest.Wait()
		if pm.running() || pr.running() {
			t.Fatalf("without monitors' CRD: monitors running %v, routes %v; want neither", pm.running(), pr.running())
		}
		crds.install(monitors)
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		for _, p := range []*part{pm, pr} {
			r, f := p.current()
			if !isClosed(r.stopped()) || !isClosed(f.shutDown()) {
				t.Errorf("%s: after Run, runnable stopped %v, factory shut down %v", p.name, isClosed(r.stopped()), isClosed(f.shutDown()))
			}
		}
	})
}

func TestAddOptionalChecksItsArguments(t *testing.T) {
	m := mustNew(t, Options{Logger: quiet()})
	setup := func(Registrar) error { return nil }
	for _, o := range []Optional{
		{Resources: []schema.GroupVersionResource{monitors}, Setup: setup},
		{Name: "a", Setup: setup},
		{Name: "a", Resources: []schema.GroupVersionResource{{Version: "v1", Resource: "pods"}}, Setup: setup},
		{Name: "a", Resources: []schema.GroupVersionResource{monitors}},
		{Name: "a", Resources: []schema.GroupVersionResource{monitors}, Setup: setup}, // no RESTConfig
	} {
		if err := m.AddOptional(o); err == nil {
			t.Errorf("AddOptional(%+v) succeeded", o)
		}
	}
}

// A part whose caches are still filling does not take the Manager out of
// service: /readyz passes and says the part is starting.
func TestOptionalSyncingPartKeepsManagerReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		crds := newFakeCRDs(t, monitors)
		m := mustNew(t, Options{Logger: quiet()})
		m.newCRDTracker = crds.newTracker
		slow := newFake("slow", false, nil) // never synced
		if err := m.AddOptional(Optional{Name: "monitoring", Resources: []schema.GroupVersionResource{monitors},
			Setup: func(reg Registrar) error { return reg.Add(slow) }}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-slow.started
		synctest.Wait()
		if body := readyzVerbose(t, m); !strings.Contains(body, "[+]optional-monitoring ok: starting: slow syncing") {
			t.Errorf("/readyz?verbose while the part syncs:\n%s", body)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// On a standby, a part's leader runnable waits for the Lease; its other
// runnables run at once.
func TestOptionalPartOnStandby(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		var active, maxActive atomic.Int32
		a := startCandidate(t, leOptions(client, "a", true), &active, &maxActive)
		<-a.m.Elected()

		crds := newFakeCRDs(t, monitors)
		m := mustNew(t, leOptions(client, "b", true))
		m.newCRDTracker = crds.newTracker
		leader, other := &part{name: "monitor-writer", leader: true}, &part{name: "monitor-cache"}
		if err := m.AddOptional(Optional{Name: "monitoring", Resources: []schema.GroupVersionResource{monitors},
			Setup: func(reg Registrar) error { return errors.Join(leader.setup(reg), other.setup(reg)) }}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		synctest.Wait()
		if !other.running() || leader.running() {
			t.Fatalf("on the standby: other runs %v, leader runs %v; want true, false", other.running(), leader.running())
		}
		a.stop(t)
		<-m.Elected()
		synctest.Wait()
		if !leader.running() {
			t.Error("the part's leader runnable did not start with the Lease")
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// AddOptional on a running Manager starts following the CRDs at once.
func TestAddOptionalWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		crds := newFakeCRDs(t, monitors)
		m := mustNew(t, Options{Logger: quiet()})
		m.newCRDTracker = crds.newTracker
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-m.Elected()
		p := &part{name: "monitors"}
		if err := m.AddOptional(Optional{Name: "monitoring", Resources: []schema.GroupVersionResource{monitors}, Setup: p.setup}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if !p.running() {
			t.Error("a part added to a running Manager, its CRD installed, does not run")
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}
