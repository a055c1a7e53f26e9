package benchmarks

// A process that runs ctrlkit's and controller-runtime's controllers side by
// side shares controller-runtime's metrics registry, and one dashboard reads
// both: these tests check it against controller-runtime's real registry and
// collectors (registered by its packages' init functions).

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	crhandler "sigs.k8s.io/controller-runtime/pkg/handler"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
)

// TestControllerRuntimeRegistryIsShared builds a ctrlkit controller on
// controller-runtime's metrics.Registry, which already holds
// controller-runtime's collectors, and runs it beside a controller-runtime
// controller of the same name: both count their reconciles and adds in the
// same series.
func TestControllerRuntimeRegistryIsShared(t *testing.T) {
	const name, keys = "shared", 3
	series := []struct {
		family string
		labels map[string]string
	}{
		{"controller_runtime_reconcile_total", map[string]string{"controller": name, "result": "success"}},
		{"controller_runtime_reconcile_time_seconds", map[string]string{"controller": name}},
		{"workqueue_adds_total", map[string]string{"name": name, "controller": name}},
	}
	before := make([]float64, len(series)) // the registry is global: -count=2 finds the first run's
	for i, s := range series {
		before[i] = seriesValue(t, crmetrics.Registry, s.family, s.labels)
	}
	runSideBySide(t, name, crmetrics.Registry, keys)
	for i, s := range series {
		if got := seriesValue(t, crmetrics.Registry, s.family, s.labels) - before[i]; got != 2*keys {
			t.Errorf("%s%v rose by %v, want %d: %d reconciles of each controller", s.family, s.labels, got, 2*keys, keys)
		}
	}
}

// TestLabelsMatchControllerRuntime compares the label names of every
// workqueue_* and controller_runtime_* family that controller-runtime
// exports with ctrlkit's families of the same names, on a registry of
// ctrlkit's own.
func TestLabelsMatchControllerRuntime(t *testing.T) {
	ours := prometheus.NewRegistry()
	runSideBySide(t, "labels", ours, 1)

	theirLabels, ourLabels := labelNames(t, crmetrics.Registry), labelNames(t, ours)
	for _, family := range []string{
		"workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds",
		"workqueue_work_duration_seconds", "workqueue_unfinished_work_seconds",
		"workqueue_longest_running_processor_seconds", "workqueue_retries_total",
		"controller_runtime_reconcile_total", "controller_runtime_reconcile_errors_total",
		"controller_runtime_terminal_reconcile_errors_total", "controller_runtime_reconcile_panics_total",
		"controller_runtime_reconcile_timeouts_total", "controller_runtime_reconcile_time_seconds",
		"controller_runtime_max_concurrent_reconciles", "controller_runtime_active_workers",
	} {
		theirs, ok := theirLabels[family]
		if !ok {
			t.Errorf("controller-runtime exports no %s", family)
			continue
		}
		if mine := ourLabels[family]; !slices.Equal(mine, theirs) {
			t.Errorf("%s labels: ctrlkit %q, controller-runtime %q", family, mine, theirs)
		}
	}
}

// runSideBySide runs, over one informer of n ConfigMaps, a ctrlkit controller
// with its metrics on reg and a controller-runtime controller (metrics on
// its own registry), both named name, until each has reconciled every
// ConfigMap, then stops both.
func runSideBySide(t *testing.T, name string, reg prometheus.Registerer, n int) {
	t.Helper()
	objs := make([]runtime.Object, n)
	for i := range objs {
		objs[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprintf("cm-%d", i)}}
	}
	factory := informers.NewSharedInformerFactory(fake.NewClientset(objs...), 0)
	informer := factory.Core().V1().ConfigMaps().Informer()

	var ckCount, crCount atomic.Int64
	allDone := make(chan struct{})
	var once sync.Once
	counted := func(c *atomic.Int64) {
		if c.Add(1) == int64(n) && ckCount.Load() == int64(n) && crCount.Load() == int64(n) {
			once.Do(func() { close(allDone) })
		}
	}
	ck, err := controller.New(name, controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		counted(&ckCount)
		return controller.Result{}, nil
	}), controller.Options[string]{Registry: reg})
	if err != nil {
		t.Fatalf("ctrlkit controller on the registry: %v", err)
	}
	if err := ck.Watch(informer, handler.ForObject(handler.ObjectKey)); err != nil {
		t.Fatal(err)
	}
	skip := true
	cr, err := crcontroller.NewTypedUnmanaged(name, crcontroller.TypedOptions[reconcile.Request]{
		Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
			counted(&crCount)
			return reconcile.Result{}, nil
		}),
		SkipNameValidation: &skip,
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := cr.Watch(&source.Informer{Informer: informer, Handler: &crhandler.EnqueueRequestForObject{}}); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	ran := make(chan error, 2)
	go func() { ran <- ck.Run(ctx) }()
	go func() { ran <- cr.Start(ctx) }()
	select {
	case <-allDone:
	case <-time.After(time.Minute):
		t.Errorf("reconciled %d keys with ctrlkit and %d with controller-runtime, want %d each", ckCount.Load(), crCount.Load(), n)
	}
	cancel() // both return once their workers have finished: the metrics are final
	for range 2 {
		if err := <-ran; err != nil {
			t.Errorf("controller returned %v", err)
		}
	}
	factory.Shutdown()
}

// labelNames returns the sorted label names of each family reg exports.
func labelNames(t *testing.T, reg prometheus.Gatherer) map[string][]string {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string][]string{}
	for _, f := range families {
		set := map[string]bool{}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				set[l.GetName()] = true
			}
		}
		names[f.GetName()] = slices.Sorted(maps.Keys(set))
	}
	return names
}

// seriesValue returns the value of the series family{labels}: a counter's,
// or a histogram's sample count; 0 if there is no such series yet.
func seriesValue(t *testing.T, reg prometheus.Gatherer, family string, labels map[string]string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != family {
			continue
		}
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if !maps.Equal(got, labels) {
				continue
			}
			if h := m.GetHistogram(); h != nil {
				return float64(h.GetSampleCount())
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}
