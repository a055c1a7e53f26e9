package benchmarks

// Side-by-side controller benchmarks: informer events to Reconcile calls per
// second, with a no-op reconciler and one worker (every framework's
// default), for
//
//   - ctrlkit: controller.Controller with handler.ForObject, metrics on;
//   - ctrlkit-nometrics: the same without a metrics registry (the default);
//   - controller-runtime: an unmanaged controller with source.Informer and
//     EnqueueRequestForObject (its priority queue, its global metrics);
//   - bare-queue: a hand-written informer handler and worker loop on
//     ctrlkit's workqueue, no metrics: the floor a controller can reach.
//
// Two event sources, each fed b.N+1 new ConfigMaps (distinct keys):
//
//   - Informer: client-go's shared informer over the fake clientset, its
//     watch fed by a FakeWatcher, so every event goes through the reflector,
//     the FIFO, the store and the informer's per-handler buffers; this is
//     what controller-runtime's cache runs;
//   - Direct: a custom informer that calls the registered handler at once,
//     leaving only the controllers' own cost.
//
//	cd internal/benchmarks && go test -run '^$' -bench Controller -benchtime=100000x -count=10
//
// Besides wall-clock reconciles/s, each result reports cpu-ns/op: the
// process's CPU time per reconcile, which other processes on a busy machine
// do not inflate. Runs of 100,000 events are steadier than shorter ones;
// they are also slower, since the informer's store and the queue grow to
// 100,000 keys.
//
// Every variant starts from a heap returned to the OS (debug.FreeOSMemory):
// pages faulted in by the variant before, usually controller-runtime's, made
// the next one's allocations cheaper and its rate up to 20% higher.
//
// Measured 2026-12-02 00:40 UTC on 2 shared cores (AMD EPYC), load
// average about 1, -count=5, medians (wall reconciles/s):
//
//	                     Informer   Direct
//	ctrlkit              174k       228k
//	ctrlkit-nometrics    158k       317k
//	controller-runtime    62k        73k
//	bare-queue           157k      1001k
//
// This case has no target: its reconciles do nothing, which no controller
// does (see the realistic case in realistic_bench_test.go). On client-go's
// informer the informer is the floor: every ctrlkit variant reaches the
// bare queue loop, and 2.5-2.8x controller-runtime. With the informer out
// of the way (Direct), the controller's per-reconcile work shows: its
// logger and reconcile ID, and with metrics controller-runtime's series
// and the seven workqueue series: 3.9 us of CPU per reconcile without
// metrics and 5.3 us with, against the bare loop's 1.3 us.
//
// The controller's workers and the bare queue loop both use Get and Done,
// as client-go's loop does.

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	crhandler "sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// controllerUnderBench wires a controller to informer and calls counted once
// per Reconcile. It returns a function that starts it (blocking until ctx is
// cancelled).
type controllerUnderBench struct {
	name  string
	setup func(b *testing.B, informer cache.SharedIndexInformer, counted func()) (run func(ctx context.Context))
}

var controllersUnderBench = []controllerUnderBench{
	{"ctrlkit", func(b *testing.B, informer cache.SharedIndexInformer, counted func()) func(context.Context) {
		return ctrlkitUnderBench(b, informer, counted, prometheus.NewRegistry())
	}},
	{"ctrlkit-nometrics", func(b *testing.B, informer cache.SharedIndexInformer, counted func()) func(context.Context) {
		return ctrlkitUnderBench(b, informer, counted, nil)
	}},
	{"controller-runtime", func(b *testing.B, informer cache.SharedIndexInformer, counted func()) func(context.Context) {
		skip := true
		c, err := crcontroller.NewTypedUnmanaged("bench", crcontroller.TypedOptions[reconcile.Request]{
			Reconciler: reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) {
				counted()
				return reconcile.Result{}, nil
			}),
			SkipNameValidation: &skip,
			Logger:             logr.Discard(),
		})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Watch(&source.Informer{Informer: informer, Handler: &crhandler.EnqueueRequestForObject{}}); err != nil {
			b.Fatal(err)
		}
		return func(ctx context.Context) {
			if err := c.Start(ctx); err != nil {
				b.Error(err)
			}
		}
	}},
	{"bare-queue", func(b *testing.B, informer cache.SharedIndexInformer, counted func()) func(context.Context) {
		q := workqueue.New(workqueue.Options[string]{})
		add := func(obj any) {
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				q.Add(key)
			}
		}
		_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    add,
			UpdateFunc: func(_, obj any) { add(obj) },
			DeleteFunc: add,
		})
		if err != nil {
			b.Fatal(err)
		}
		return func(ctx context.Context) {
			go func() {
				<-ctx.Done()
				q.ShutDown()
			}()
			for {
				key, shutdown := q.Get()
				if shutdown {
					return
				}
				counted()
				q.Forget(key)
				q.Done(key)
			}
		}
	}},
}

// ctrlkitUnderBench is a ctrlkit controller with default options and, if
// reg is set, metrics (controller and queue) on reg.
func ctrlkitUnderBench(b *testing.B, informer cache.SharedIndexInformer, counted func(), reg prometheus.Registerer) func(context.Context) {
	c, err := controller.New("bench", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		counted()
		return controller.Result{}, nil
	}), controller.Options[string]{Registry: reg})
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Watch(informer, handler.ForObject(handler.ObjectKey)); err != nil {
		b.Fatal(err)
	}
	return func(ctx context.Context) {
		if err := c.Run(ctx); err != nil {
			b.Error(err)
		}
	}
}

// reconcileCounter closes warm at the first reconcile and done at the total-th.
type reconcileCounter struct {
	n     atomic.Int64
	total int64
	warm  chan struct{}
	done  chan struct{}
}

func newReconcileCounter(total int) *reconcileCounter {
	return &reconcileCounter{total: int64(total), warm: make(chan struct{}), done: make(chan struct{})}
}

func (c *reconcileCounter) inc() {
	switch c.n.Add(1) {
	case 1:
		close(c.warm)
	case c.total:
		close(c.done)
	}
}

func benchConfigMaps(n int) []*corev1.ConfigMap {
	objs := make([]*corev1.ConfigMap, n)
	for i := range objs {
		objs[i] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%10), Name: fmt.Sprintf("cm-%d", i), ResourceVersion: fmt.Sprint(i + 2),
		}}
	}
	return objs
}

// eventSource feeds objects to the informer it made.
type eventSource struct {
	name  string
	setup func(b *testing.B, n int) (informer cache.SharedIndexInformer, run func(ctx context.Context), emit func(obj *corev1.ConfigMap))
}

var eventSources = []eventSource{
	{"Informer", func(b *testing.B, n int) (cache.SharedIndexInformer, func(context.Context), func(*corev1.ConfigMap)) {
		w := watch.NewFakeWithChanSize(n, false)
		client := fake.NewClientset()
		client.PrependWatchReactor("configmaps", func(clienttesting.Action) (bool, watch.Interface, error) {
			return true, w, nil
		})
		informer := informers.NewSharedInformerFactory(client, 0).Core().V1().ConfigMaps().Informer()
		return informer, informer.RunWithContext, func(obj *corev1.ConfigMap) { w.Add(obj) }
	}},
	{"Direct", func(b *testing.B, n int) (cache.SharedIndexInformer, func(context.Context), func(*corev1.ConfigMap)) {
		informer := newDirectInformer()
		return informer, func(ctx context.Context) { <-ctx.Done() }, informer.emit
	}},
}

func BenchmarkControllerEventsToReconciles(b *testing.B) {
	warmUpFakeClientset()
	for _, src := range eventSources {
		for _, cut := range controllersUnderBench {
			b.Run(src.name+"/"+cut.name, func(b *testing.B) {
				// Every variant starts from a heap returned to the OS:
				// pages a previous variant faulted in and the scavenger
				// has not yet returned make the next one's allocations
				// cheaper (bare-queue measured 660-700k reconciles/s on
				// its own, 780-825k right after controller-runtime).
				debug.FreeOSMemory()
				objs := benchConfigMaps(b.N + 1)
				counter := newReconcileCounter(b.N + 1)
				informer, runInformer, emit := src.setup(b, b.N+1)
				runController := cut.setup(b, informer, counter.inc)

				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				wg.Go(func() { runInformer(ctx) })
				wg.Go(func() { runController(ctx) })
				defer func() {
					cancel()
					wg.Wait()
				}()

				// One event first, so that syncing and starting workers is
				// not timed.
				emit(objs[0])
				<-counter.warm
				b.ResetTimer()
				cpu0 := processCPUTime(b)
				for _, obj := range objs[1:] {
					emit(obj)
				}
				<-counter.done
				cpu := processCPUTime(b) - cpu0
				b.StopTimer()
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "reconciles/s")
				// CPU time is what the other processes on a shared machine
				// cannot inflate, unlike wall time.
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// warmUpFakeClientset builds the fake clientset's type converter, which
// the first fake.NewClientset of a process parses from OpenAPI YAML: left
// to the first variant, its CPU and its garbage would count against that
// variant alone.
func warmUpFakeClientset() {
	fake.NewClientset()
	debug.FreeOSMemory()
}

// processCPUTime returns the user and system CPU time the process used.
func processCPUTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// directInformer is a custom informer that hands each emitted object to its
// handlers at once, as an add event.
type directInformer struct {
	cache.SharedIndexInformer // unimplemented methods panic

	mu         sync.Mutex
	handlers   []cache.ResourceEventHandler
	registered chan struct{} // closed by the first AddEventHandler
}

func newDirectInformer() *directInformer {
	return &directInformer{registered: make(chan struct{})}
}

// emit waits for a handler (controller-runtime registers its handler only
// when the controller starts), then delivers obj.
func (d *directInformer) emit(obj *corev1.ConfigMap) {
	<-d.registered
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range d.handlers {
		h.OnAdd(obj, false)
	}
}

func (d *directInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.handlers = append(d.handlers, h)
	if len(d.handlers) == 1 {
		close(d.registered)
	}
	return syncedRegistration{}, nil
}

func (d *directInformer) AddEventHandlerWithOptions(h cache.ResourceEventHandler, _ cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return d.AddEventHandler(h)
}

func (d *directInformer) AddEventHandlerWithResyncPeriod(h cache.ResourceEventHandler, _ time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return d.AddEventHandler(h)
}

func (d *directInformer) RemoveEventHandler(cache.ResourceEventHandlerRegistration) error { return nil }
func (d *directInformer) AddIndexers(cache.Indexers) error                                { return nil }
func (d *directInformer) HasSynced() bool                                                 { return true }
func (d *directInformer) HasSyncedChecker() cache.DoneChecker                             { return syncedRegistration{} }
func (d *directInformer) IsStopped() bool                                                 { return false }

// syncedRegistration is a registration (and DoneChecker) that has synced.
type syncedRegistration struct{}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

func (syncedRegistration) HasSynced() bool                     { return true }
func (syncedRegistration) HasSyncedChecker() cache.DoneChecker { return syncedRegistration{} }
func (syncedRegistration) Name() string                        { return "direct" }
func (syncedRegistration) Done() <-chan struct{}               { return closedChan }
