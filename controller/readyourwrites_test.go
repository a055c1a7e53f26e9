package controller_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// watchDelay is how late the test informers deliver watch events.
const watchDelay = 300 * time.Millisecond

// cacheView is what one reconcile of ns/parent found in the informer's cache.
type cacheView struct {
	at       time.Time
	parentRV string
	child    bool // ns/child exists
	victim   bool // ns/victim exists
}

// writingReconciler reconciles ns/parent: the first time, it makes one
// write (an update of ns/parent, a create of ns/child or a delete of
// ns/victim), records it if asked, and asks to be reconciled again right
// away, as an event for the key would. Every reconcile notes what the
// cache held when it started.
type writingReconciler struct {
	t        *testing.T
	env      *controllertest.Env
	informer cache.SharedIndexInformer
	write    string // "update", "create" or "delete"
	record   bool
	// untilCached makes the update wait, before recording, until the
	// informer has delivered it.
	untilCached bool

	mu      sync.Mutex
	views   []cacheView
	wroteRV string // of the update or create
}

func (r *writingReconciler) Reconcile(ctx context.Context, key string) (controller.Result, error) {
	if key != "ns/parent" {
		return controller.Result{}, nil
	}
	store := r.informer.GetStore()
	view := r.view(store)
	victim, _, _ := store.GetByKey("ns/victim")
	r.mu.Lock()
	r.views = append(r.views, view)
	first := len(r.views) == 1
	r.mu.Unlock()
	if !first {
		return controller.Result{}, nil
	}

	configMaps := r.env.Client.CoreV1().ConfigMaps("ns")
	switch r.write {
	case "update":
		obj, _, _ := store.GetByKey("ns/parent")
		cm := obj.(*corev1.ConfigMap).DeepCopy()
		cm.Data = map[string]string{"written": "yes"}
		updated, err := configMaps.Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			return controller.Result{}, err
		}
		r.wrote(updated.ResourceVersion)
		for r.untilCached && !r.holdsWrite(r.view(store)) {
			time.Sleep(time.Millisecond)
		}
		if r.record {
			controller.RecordWrite(ctx, r.informer, updated)
		}
	case "create":
		created, err := configMaps.Create(ctx, configMap("ns", "child"), metav1.CreateOptions{})
		if err != nil {
			return controller.Result{}, err
		}
		r.wrote(created.ResourceVersion)
		if r.record {
			controller.RecordWrite(ctx, r.informer, created)
		}
	case "delete":
		if err := configMaps.Delete(ctx, "victim", metav1.DeleteOptions{}); err != nil {
			return controller.Result{}, err
		}
		if r.record {
			controller.RecordDelete(ctx, r.informer, victim.(*corev1.ConfigMap))
		}
	}
	return controller.Result{RequeueAfter: time.Millisecond}, nil
}

// view returns what store holds now.
func (r *writingReconciler) view(store cache.Store) cacheView {
	view := cacheView{at: time.Now()}
	if obj, ok, _ := store.GetByKey("ns/parent"); ok {
		view.parentRV = obj.(*corev1.ConfigMap).ResourceVersion
	}
	_, view.child, _ = store.GetByKey("ns/child")
	_, view.victim, _ = store.GetByKey("ns/victim")
	return view
}

func (r *writingReconciler) wrote(rv string) {
	r.mu.Lock()
	r.wroteRV = rv
	r.mu.Unlock()
}

func (r *writingReconciler) seen() []cacheView {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]cacheView(nil), r.views...)
}

// holdsWrite reports whether view shows the first reconcile's write.
func (r *writingReconciler) holdsWrite(view cacheView) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch r.write {
	case "update":
		cmp, err := resourceversion.CompareResourceVersion(view.parentRV, r.wroteRV)
		if err != nil {
			r.t.Fatalf("comparing %q with %q: %v", view.parentRV, r.wroteRV, err)
		}
		return cmp >= 0
	case "create":
		return view.child
	default:
		return !view.victim
	}
}

// startWriting runs a controller with a writingReconciler on a ConfigMap
// informer whose events arrive delay late, and returns once the first
// reconcile of ns/parent has made its write.
func startWriting(t *testing.T, write string, record bool, delay time.Duration, opts controller.Options[string]) (*writingReconciler, *prometheus.Registry) {
	t.Helper()
	env, informer := newLateEnv(t, delay, configMap("ns", "parent"), configMap("ns", "victim"))
	r := &writingReconciler{t: t, env: env, informer: informer, write: write, record: record}
	reg := prometheus.NewRegistry()
	opts.Registry = reg
	c, err := controller.New("writer", controller.Reconciler[string](r), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Watch(informer, handler.ForObject(handler.ObjectKey)); err != nil {
		t.Fatal(err)
	}
	env.Start(c)
	if got := len(r.seen()); got != 1 {
		t.Fatalf("after start, ns/parent reconciled %d times, want 1", got)
	}
	return r, reg
}

var writerLabels = map[string]string{"controller": "writer"}

func TestNextReconcileReadsItsOwnWrites(t *testing.T) {
	for _, write := range []string{"update", "create", "delete"} {
		t.Run(write, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				r, reg := startWriting(t, write, true, watchDelay, controller.Options[string]{})
				if got := metricValue(t, reg, "controller_runtime_reconcile_cache_hold_keys", writerLabels); got != 1 {
					t.Errorf("held keys after the write = %v, want 1", got)
				}
				time.Sleep(watchDelay + time.Second)
				synctest.Wait()

				views := r.seen()
				if len(views) < 2 {
					t.Fatalf("ns/parent reconciled %d times, want a second reconcile", len(views))
				}
				if !r.holdsWrite(views[1]) {
					t.Errorf("second reconcile read a cache without the first one's %s: %+v", write, views[1])
				}
				if waited := views[1].at.Sub(views[0].at); waited < watchDelay {
					t.Errorf("second reconcile started %s after the first, before the informer could deliver the write (%s)", waited, watchDelay)
				}
				for name, want := range map[string]float64{
					"controller_runtime_reconcile_cache_hold_keys":             0,
					"controller_runtime_reconcile_cache_hold_duration_seconds": 1,
					"controller_runtime_reconcile_cache_hold_timeouts_total":   0,
				} {
					if got := metricValue(t, reg, name, writerLabels); got != want {
						t.Errorf("%s = %v, want %v", name, got, want)
					}
				}
			})
		})
	}
}

// TestReconcilerRecordingNothingIsNotHeld is the control of
// TestNextReconcileReadsItsOwnWrites: the same writes, unrecorded or
// recorded on a controller with DisableReadYourWrites, are not waited for,
// so the late informer shows a stale cache to the next reconcile.
func TestReconcilerRecordingNothingIsNotHeld(t *testing.T) {
	for _, tc := range []struct {
		name   string
		record bool
		opts   controller.Options[string]
	}{
		{name: "unrecorded"},
		{name: "disabled", record: true, opts: controller.Options[string]{DisableReadYourWrites: true}},
	} {
		for _, write := range []string{"update", "create", "delete"} {
			t.Run(tc.name+"/"+write, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					r, reg := startWriting(t, write, tc.record, watchDelay, tc.opts)
					time.Sleep(watchDelay / 2)
					synctest.Wait()

					views := r.seen()
					if len(views) != 2 {
						t.Fatalf("ns/parent reconciled %d times before the informer delivered, want 2", len(views))
					}
					if r.holdsWrite(views[1]) {
						t.Errorf("second reconcile already saw the %s: the informer is not late, the test proves nothing", write)
					}
					for name, want := range map[string]float64{
						"controller_runtime_reconcile_cache_hold_keys":             0,
						"controller_runtime_reconcile_cache_hold_duration_seconds": 0,
					} {
						if got := metricValue(t, reg, name, writerLabels); got != want {
							t.Errorf("%s = %v, want %v", name, got, want)
						}
					}
				})
			})
		}
	}
}

// TestWriteAlreadyCachedIsNotWaitedFor covers a fast informer: one that
// delivered the write before the reconcile returned, so no event is left
// to release the key. The controller finds the write in the informer's
// store and hands the key back at once.
func TestWriteAlreadyCachedIsNotWaitedFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env, informer := newLateEnv(t, watchDelay, configMap("ns", "parent"), configMap("ns", "victim"))
		r := &writingReconciler{t: t, env: env, informer: informer, write: "update", record: true, untilCached: true}
		reg := prometheus.NewRegistry()
		c, err := controller.New("writer", controller.Reconciler[string](r), controller.Options[string]{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(informer, handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		env.Start(c)
		time.Sleep(watchDelay + 10*time.Millisecond)
		synctest.Wait()

		views := r.seen()
		if len(views) < 2 {
			t.Fatalf("ns/parent reconciled %d times, want a second reconcile well before the bound", len(views))
		}
		if !r.holdsWrite(views[1]) {
			t.Errorf("second reconcile read a cache without the update: %+v", views[1])
		}
		for name, want := range map[string]float64{
			"controller_runtime_reconcile_cache_hold_keys":             0,
			"controller_runtime_reconcile_cache_hold_duration_seconds": 1,
			"controller_runtime_reconcile_cache_hold_timeouts_total":   0,
		} {
			if got := metricValue(t, reg, name, writerLabels); got != want {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
	})
}

func TestHeldKeyProceedsAfterTheBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const bound = 2 * time.Second
		r, reg := startWriting(t, "update", true, time.Hour, controller.Options[string]{CacheHoldTimeout: bound})

		time.Sleep(bound - time.Millisecond)
		synctest.Wait()
		if got := len(r.seen()); got != 1 {
			t.Fatalf("ns/parent reconciled %d times before the bound, want 1", got)
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_cache_hold_keys", writerLabels); got != 1 {
			t.Errorf("held keys before the bound = %v, want 1", got)
		}

		time.Sleep(2 * time.Millisecond)
		synctest.Wait()
		views := r.seen()
		if len(views) != 2 {
			t.Fatalf("ns/parent reconciled %d times after the bound, want 2", len(views))
		}
		if r.holdsWrite(views[1]) {
			t.Errorf("the write showed up after all; the test proves nothing")
		}
		for name, want := range map[string]float64{
			"controller_runtime_reconcile_cache_hold_keys":             0,
			"controller_runtime_reconcile_cache_hold_duration_seconds": 1,
			"controller_runtime_reconcile_cache_hold_timeouts_total":   1,
		} {
			if got := metricValue(t, reg, name, writerLabels); got != want {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
	})
}

func TestShutdownReleasesHeldKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env, informer := newLateEnv(t, time.Hour, configMap("ns", "parent"), configMap("ns", "victim"))
		r := &writingReconciler{t: t, env: env, informer: informer, write: "update", record: true}
		queue := workqueue.New(workqueue.Options[string]{})
		reg := prometheus.NewRegistry()
		c, err := controller.New("writer", controller.Reconciler[string](r), controller.Options[string]{
			Queue: queue, Registry: reg, CacheHoldTimeout: time.Minute,
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(informer, handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		synctest.Wait()
		if got := metricValue(t, reg, "controller_runtime_reconcile_cache_hold_keys", writerLabels); got != 1 {
			t.Fatalf("held keys = %v, want 1", got)
		}

		start := time.Now()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		queue.ShutDownWithDrain() // returns once no key is in flight
		if waited := time.Since(start); waited != 0 {
			t.Errorf("shutdown waited %s for the held key", waited)
		}
		for name, want := range map[string]float64{
			"controller_runtime_reconcile_cache_hold_keys":           0,
			"controller_runtime_reconcile_cache_hold_timeouts_total": 0,
		} {
			if got := metricValue(t, reg, name, writerLabels); got != want {
				t.Errorf("%s = %v, want %v", name, got, want)
			}
		}
	})
}

// A write recorded against an informer the controller does not watch can
// never be seen delivered: the controller ignores it rather than hold the
// key for the whole bound.
func TestWriteToUnwatchedInformerIsNotHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, configMap("ns", "parent"))
		unwatched := cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.ConfigMap{}, 0, cache.Indexers{})
		var calls int
		reg := prometheus.NewRegistry()
		r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			calls++
			if calls == 1 {
				written := configMap("ns", "parent")
				written.ResourceVersion = "100"
				controller.RecordWrite(ctx, unwatched, written)
				return controller.Result{RequeueAfter: time.Millisecond}, nil
			}
			return controller.Result{}, nil
		})
		c, err := controller.New("writer", controller.Reconciler[string](r), controller.Options[string]{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(env.Informers.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		env.Start(c)
		env.Advance(2 * time.Millisecond)
		if calls != 2 {
			t.Errorf("reconciled %d times, want 2: the requeue was not held", calls)
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_cache_hold_duration_seconds", writerLabels); got != 0 {
			t.Errorf("holds = %v, want 0", got)
		}
	})
}

// TestWriteRecordedAgainstAnotherWrapperIsHeld: each Informer() call of a
// client-go typed informer returns a new wrapper of the factory's
// informer; a write recorded against another wrapper than the one passed
// to Watch is held all the same.
func TestWriteRecordedAgainstAnotherWrapperIsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, configMap("ns", "parent"))
		reg := prometheus.NewRegistry()
		r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			written := configMap("ns", "parent")
			written.ResourceVersion = "100" // never delivered: held until the bound
			controller.RecordWrite(ctx, env.Informers.Core().V1().ConfigMaps().Informer(), written)
			return controller.Result{}, nil
		})
		c, err := controller.New("writer", controller.Reconciler[string](r), controller.Options[string]{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(env.Informers.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		env.Start(c)
		if got := metricValue(t, reg, "controller_runtime_reconcile_cache_hold_keys", writerLabels); got != 1 {
			t.Errorf("held keys = %v, want 1: the write was not matched to the watched informer", got)
		}
	})
}
