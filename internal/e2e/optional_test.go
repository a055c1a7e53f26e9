//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"go.uber.org/goleak"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/builder"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// Issue 47's optional kinds, on a local API server: a manager whose
// controller watches a custom resource that is not installed is ready and
// quiet; installed, its objects are reconciled within seconds; deleted,
// the informer and controller stop, with no error loop and no goroutine
// left; installed again, reconciling resumes.
func TestOptionalKindComesAndGoes(t *testing.T) {
	cp := shardedCP.get(t) // any API server serves CRDs; this one runs nothing else
	logs := captureErrors(t)
	widgets := newOptionalKind(t, cp.RESTConfig(), "widgets", "Widget")
	m, addr := startOptionalManager(t, cp.RESTConfig(), logs.logger(), widgets)

	expectReadyz(t, addr, "[+]optional-widgets ok: not watching: not served: "+widgets.resourceName())
	testutil.Consistently(t, 3*time.Second, "no errors logged while the CRD is absent", logs.none)

	// No goroutine the part starts may outlive it: snapshot them now.
	before := goleak.IgnoreCurrent()
	for round := 1; round <= 2; round++ {
		widgets.install(t)
		installed := time.Now()
		widgets.create(t, fmt.Sprintf("w-%d", round))
		widgets.waitReconciled(t, fmt.Sprintf("w-%d", round))
		t.Logf("round %d: installed to reconciled in %s", round, time.Since(installed).Round(time.Millisecond))
		if d := time.Since(installed); d > 20*time.Second {
			t.Errorf("round %d: installed to reconciled took %s", round, d)
		}
		expectReadyz(t, addr, "[+]optional-widgets ok: watching "+widgets.resourceName())
		expectWatched(t, m, "widgets", 1)

		errorsBefore := len(logs.get())
		widgets.uninstall(t)
		expectReadyz(t, addr, "[+]optional-widgets ok: not watching: not served: "+widgets.resourceName())
		expectWatched(t, m, "widgets", 0)
		testutil.Eventually(t, 30*time.Second, "the part's goroutines to end", func(context.Context) (bool, error) {
			err := goleak.Find(before)
			return err == nil, err
		})
		// Between the CRD's deletion and the informer's stop, client-go's
		// reflector may fail a watch or a list once or twice; a loop would
		// go on.
		if errs := logs.get()[errorsBefore:]; len(errs) > 2 {
			t.Errorf("round %d: %d errors logged while the CRD went away: %q", round, len(errs), errs)
		} else if len(errs) > 0 {
			t.Logf("round %d: logged while the CRD went away: %q", round, errs)
		}
		logs.reset()
		testutil.Consistently(t, 3*time.Second, "no errors logged once the part stopped", logs.none)
	}
}

// The same with two optional kinds, one installed at start: it is
// reconciled at once; the other joins when installed and leaves when
// deleted, and the first goes on.
func TestTwoOptionalKinds(t *testing.T) {
	cp := shardedCP.get(t)
	logs := captureErrors(t)
	gadgets := newOptionalKind(t, cp.RESTConfig(), "gadgets", "Gadget")
	gizmos := newOptionalKind(t, cp.RESTConfig(), "gizmos", "Gizmo")
	gadgets.install(t)
	m, addr := startOptionalManager(t, cp.RESTConfig(), logs.logger(), gadgets, gizmos)

	gadgets.create(t, "g-1")
	gadgets.waitReconciled(t, "g-1")
	expectReadyz(t, addr, "[+]optional-gadgets ok: watching "+gadgets.resourceName())
	expectReadyz(t, addr, "[+]optional-gizmos ok: not watching: not served: "+gizmos.resourceName())
	expectWatched(t, m, "gizmos", 0)

	gizmos.install(t)
	gizmos.create(t, "z-1")
	gizmos.waitReconciled(t, "z-1")
	expectWatched(t, m, "gizmos", 1)

	gizmos.uninstall(t)
	expectReadyz(t, addr, "[+]optional-gizmos ok: not watching: not served: "+gizmos.resourceName())
	gadgets.create(t, "g-2")
	gadgets.waitReconciled(t, "g-2")
	expectWatched(t, m, "gadgets", 1)
	testutil.Consistently(t, 3*time.Second, "no errors logged once gizmos stopped", logs.none)

	gizmos.install(t)
	gizmos.create(t, "z-2")
	gizmos.waitReconciled(t, "z-2")
}

// optionalKind is a cluster-scoped custom resource of a group of its own,
// installed and deleted by the test, and what its controller reconciled.
type optionalKind struct {
	gvr      schema.GroupVersionResource
	kind     string
	crds     dynamic.NamespaceableResourceInterface
	client   *typed.Client[*thing]
	mu       sync.Mutex
	seen     map[string]bool
	resource typed.Resource
}

// thing is the Go type of every optional kind here.
type thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Value string `json:"value,omitempty"`
	} `json:"spec,omitempty"`
}

func (t *thing) DeepCopyObject() runtime.Object {
	out := *t
	t.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func newOptionalKind(t *testing.T, config *rest.Config, plural, kind string) *optionalKind {
	t.Helper()
	group := strings.ToLower(t.Name()) + ".e2e.ctrlkit.dev"
	k := &optionalKind{
		gvr:      schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural},
		kind:     kind,
		seen:     map[string]bool{},
		resource: typed.Resource{Group: group, Version: "v1", Resource: plural, Kind: kind},
	}
	dyn, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	k.crds = dyn.Resource(crdGVR)
	if k.client, err = typed.NewClient[*thing](config, k.resource); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := k.delete(context.Background()); err != nil {
			t.Errorf("delete CRD %s: %v", k.crdName(), err)
		}
	})
	return k
}

func (k *optionalKind) resourceName() string {
	return k.gvr.Resource + "." + k.gvr.Version + "." + k.gvr.Group
}

func (k *optionalKind) crdName() string { return k.gvr.Resource + "." + k.gvr.Group }

// install creates the CRD and waits until it is Established.
func (k *optionalKind) install(t *testing.T) {
	t.Helper()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": k.crdName()},
		"spec": map[string]any{
			"group": k.gvr.Group,
			"scope": "Cluster",
			"names": map[string]any{"plural": k.gvr.Resource, "singular": strings.ToLower(k.kind), "kind": k.kind, "listKind": k.kind + "List"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
			}},
		},
	}}
	if _, err := k.crds.Create(t.Context(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD %s: %v", k.crdName(), err)
	}
	testutil.Eventually(t, 30*time.Second, "CRD "+k.crdName()+" to be Established", func(ctx context.Context) (bool, error) {
		got, err := k.crds.Get(ctx, k.crdName(), metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		conditions, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		for _, c := range conditions {
			if c, ok := c.(map[string]any); ok && c["type"] == "Established" && c["status"] == "True" {
				return true, nil
			}
		}
		return false, fmt.Errorf("conditions %v", conditions)
	})
}

// uninstall deletes the CRD and waits until it is gone.
func (k *optionalKind) uninstall(t *testing.T) {
	t.Helper()
	if err := k.delete(t.Context()); err != nil {
		t.Fatalf("delete CRD %s: %v", k.crdName(), err)
	}
}

// delete deletes the CRD, if any, and waits until it is gone.
func (k *optionalKind) delete(ctx context.Context) error {
	if err := k.crds.Delete(ctx, k.crdName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := k.crds.Get(ctx, k.crdName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}

func (k *optionalKind) create(t *testing.T, name string) {
	t.Helper()
	obj := &thing{ObjectMeta: metav1.ObjectMeta{Name: name}}
	obj.Spec.Value = name
	// Just after the CRD is Established, a create may still be refused for
	// a moment.
	testutil.Eventually(t, 30*time.Second, "create "+k.kind+" "+name, func(ctx context.Context) (bool, error) {
		_, err := k.client.Create(ctx, obj, metav1.CreateOptions{})
		return err == nil, err
	})
}

func (k *optionalKind) waitReconciled(t *testing.T, name string) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, k.kind+" "+name+" to be reconciled", testutil.True(func() bool {
		k.mu.Lock()
		defer k.mu.Unlock()
		return k.seen[name]
	}))
}

// optional is the manager's Optional for k: a controller of k's objects,
// built anew, with an informer factory of its own, each time k appears.
// A reconcile records the key of an object found in the cache.
func (k *optionalKind) optional(client kubernetes.Interface, registry *manager.Manager) manager.Optional {
	return manager.Optional{
		Name:      k.gvr.Resource,
		Resources: []schema.GroupVersionResource{k.gvr},
		Setup: func(reg manager.Registrar) error {
			factory := informers.NewSharedInformerFactory(client, 0)
			things := typed.NewSharedInformer(factory, k.client, typed.InformerOptions{})
			if err := reg.AddInformerFactory(manager.Factory(factory)); err != nil {
				return err
			}
			_, err := builder.ControllerManagedBy(reg, k.gvr.Resource, handler.ObjectKey).
				For(things.Informer(), k.resource.GroupKind(), k.resource.Scope()).
				WithOptions(controller.Options[string]{Registry: registry.Registry()}).
				Complete(controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
					if _, err := things.Lister().Get(key); err != nil {
						return controller.Result{}, nil // deleted
					}
					k.mu.Lock()
					k.seen[key] = true
					k.mu.Unlock()
					return controller.Result{}, nil
				}))
			return err
		},
	}
}

// startOptionalManager runs a manager with one Optional per kind and
// returns it and its probe address; it stops with the test.
func startOptionalManager(t *testing.T, config *rest.Config, log logr.Logger, kinds ...*optionalKind) (*manager.Manager, string) {
	t.Helper()
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	m, err := manager.New(manager.Options{Logger: log, RESTConfig: config, Client: client, HealthProbeAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range kinds {
		if err := m.AddOptional(k.optional(client, m)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager Run: %v", err)
		}
	})
	testutil.Eventually(t, 30*time.Second, "the probe address", testutil.True(func() bool { return m.HealthProbeAddr() != "" }))
	return m, m.HealthProbeAddr()
}

// probeClient keeps no connection open, so that none outlives a probe
// (the goroutine checks).
var probeClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// expectReadyz waits until /readyz answers 200 with line among its
// verbose checks.
func expectReadyz(t *testing.T, addr, line string) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, "/readyz?verbose to say "+line, func(ctx context.Context) (bool, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/readyz?verbose", nil)
		if err != nil {
			return false, err
		}
		resp, err := probeClient.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return false, err
		}
		return resp.StatusCode == http.StatusOK && strings.Contains(string(body), line+"\n"),
			fmt.Errorf("%d:\n%s", resp.StatusCode, body)
	})
}

// expectWatched waits until ctrlkit_optional_resource_watched of the
// Optional named name is want.
func expectWatched(t *testing.T, m *manager.Manager, name string, want float64) {
	t.Helper()
	testutil.Eventually(t, 30*time.Second, fmt.Sprintf("%s's watched metric to be %v", name, want), func(context.Context) (bool, error) {
		families, err := m.Registry().Gather()
		if err != nil {
			return false, err
		}
		for _, f := range families {
			if f.GetName() != "ctrlkit_optional_resource_watched" {
				continue
			}
			for _, metric := range f.GetMetric() {
				if labelsOf(metric)["optional"] == name {
					got := metric.GetGauge().GetValue()
					return got == want, fmt.Errorf("got %v", got)
				}
			}
		}
		return false, fmt.Errorf("no series for %s", name)
	})
}

// errorCapture collects what is logged at error level by the manager and,
// through klog, by client-go (its informers log there).
type errorCapture struct {
	mu     sync.Mutex
	errors []string
}

func captureErrors(t *testing.T) *errorCapture {
	c := &errorCapture{}
	klog.SetLogger(c.logger())
	t.Cleanup(klog.ClearLogger)
	return c
}

func (c *errorCapture) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		if strings.Contains(args, `"error"=`) {
			c.mu.Lock()
			c.errors = append(c.errors, prefix+" "+args)
			c.mu.Unlock()
		}
	}, funcr.Options{})
}

func (c *errorCapture) get() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errors...)
}

func (c *errorCapture) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errors = nil
}

// none fails once an error has been logged since the last reset.
func (c *errorCapture) none(context.Context) error {
	if errs := c.get(); len(errs) > 0 {
		return fmt.Errorf("%d errors logged: %q", len(errs), errs)
	}
	return nil
}
