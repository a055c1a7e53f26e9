package controller_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

func TestNewRejectsBadOptions(t *testing.T) {
	ok := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) { return controller.Result{}, nil })
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	for _, tc := range []struct {
		name, ctrl string
		r          controller.Reconciler[string]
		opts       controller.Options[string]
		wantErr    string
	}{
		{"empty name", "", ok, controller.Options[string]{}, "name must not be empty"},
		{"nil reconciler", "c", nil, controller.Options[string]{}, "reconciler must not be nil"},
		{"negative workers", "c", ok, controller.Options[string]{Workers: -1}, "Workers must not be negative"},
		{"queue and its options", "c", ok, controller.Options[string]{Queue: q,
			RateLimiter: workqueue.DefaultTypedControllerRateLimiter[string](), Lane: func(string) string { return "" }, MaxRetries: 3},
			"with Options.Queue set, RateLimiter, Lane, MaxRetries would have no effect"},
		{"queue and unlimited retries", "c", ok, controller.Options[string]{Queue: q,
			MaxRetries: controller.UnlimitedRetries}, "MaxRetries would have no effect"},
		{"negative timeout", "c", ok, controller.Options[string]{ShutdownTimeout: -time.Second}, "ShutdownTimeout must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := controller.New(tc.ctrl, tc.r, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestAccessors(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	r := &controllertest.Recorder[string]{}
	c, err := controller.New("mine", controller.Reconciler[string](r), controller.Options[string]{Queue: q, NeedLeaderElection: ptr.To(false)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != "mine" || c.Queue() != workqueue.Interface[string](q) || c.NeedLeaderElection() || c.HasSynced() {
		t.Errorf("Name %q, own queue %v, NeedLeaderElection %v, HasSynced %v", c.Name(), c.Queue() == workqueue.Interface[string](q), c.NeedLeaderElection(), c.HasSynced())
	}
	d, err := controller.New("default", controller.Reconciler[string](r), controller.Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Queue().ShutDown()
	if !d.NeedLeaderElection() {
		t.Error("NeedLeaderElection defaults to false, want true")
	}
}

func TestRunFailsWhenCachesDoNotSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0) // never started
		c, err := controller.New("stuck", controller.Reconciler[string](&controllertest.Recorder[string]{}),
			controller.Options[string]{CacheSyncTimeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(factory.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = c.Run(context.Background())
		if !errors.Is(err, controller.ErrCacheSyncTimeout) || !strings.Contains(err.Error(), `"stuck"`) {
			t.Fatalf("Run = %v, want a cache sync timeout naming the controller", err)
		}
		if waited := time.Since(start); waited != 10*time.Second {
			t.Errorf("Run gave up after %v, want the CacheSyncTimeout", waited)
		}
		if c.HasSynced() {
			t.Error("HasSynced after a failed sync")
		}
	})
}

func TestRunCancelledBeforeSyncIsClean(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
		c, _ := controller.New("c", controller.Reconciler[string](&controllertest.Recorder[string]{}), controller.Options[string]{})
		if err := c.Watch(factory.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := c.Run(ctx); err != nil {
			t.Fatalf("Run = %v, want nil", err)
		}
	})
}

func TestRunTwiceAndWatchAfterRunReturnedFail(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t)
		c := newConfigMapController(t, env, &controllertest.Recorder[string]{}, controller.Options[string]{})
		env.Start(c)
		if !c.HasSynced() {
			t.Fatal("HasSynced false while running")
		}
		if err := c.Run(env.Context()); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Errorf("second Run = %v, want an error", err)
		}
		stopped, err := controller.New("stopped", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
			return controller.Result{}, nil
		}), controller.Options[string]{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(env.Context())
		cancel()
		if err := stopped.Run(ctx); err != nil {
			t.Fatalf("Run = %v", err)
		}
		if err := stopped.Watch(env.Informers.Core().V1().Secrets().Informer(), handler.ForObject(handler.ObjectKey)); err == nil {
			t.Error("Watch after Run returned succeeded")
		}
	})
}

func TestShutdownLetsInFlightReconcilesFinish(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var ctxErr atomic.Value
		r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			<-release
			ctxErr.Store(errors.Join(ctx.Err(), errors.New("returned")))
			return controller.Result{}, nil
		})
		c, _ := controller.New("c", controller.Reconciler[string](r), controller.Options[string]{})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		synctest.Wait()
		c.Queue().Add("k")
		c.Queue().Add("other") // never started: the only worker is busy
		synctest.Wait()
		cancel()
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v with a reconcile in flight", err)
		default:
		}
		if c.HasSynced() != true {
			t.Error("HasSynced false before Run returned")
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("Run = %v", err)
		}
		if got := ctxErr.Load().(error).Error(); got != "returned" {
			t.Errorf("in-flight reconcile saw %q, want an uncancelled context", got)
		}
		if !c.Queue().ShuttingDown() || c.HasSynced() {
			t.Errorf("after Run: queue shutting down %v, HasSynced %v", c.Queue().ShuttingDown(), c.HasSynced())
		}
	})
}

func TestShutdownTimeoutCancelsStuckReconciles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			<-ctx.Done()
			return controller.Result{}, ctx.Err()
		})
		c, _ := controller.New("slow", controller.Reconciler[string](r), controller.Options[string]{ShutdownTimeout: 5 * time.Second})
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		synctest.Wait()
		c.Queue().Add("k")
		synctest.Wait()
		cancel()
		start := time.Now()
		err := <-done
		if err == nil || !strings.Contains(err.Error(), `"slow": 1 reconciles still running`) {
			t.Fatalf("Run = %v, want a shutdown timeout error", err)
		}
		if waited := time.Since(start); waited != 5*time.Second {
			t.Errorf("Run waited %v, want the ShutdownTimeout", waited)
		}
		synctest.Wait() // the cancelled reconcile returns; goleak checks the worker is gone
	})
}

func TestWorkersReconcileConcurrently(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		release := make(chan struct{})
		var running, most atomic.Int32
		r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			n := running.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			<-release
			running.Add(-1)
			return controller.Result{}, nil
		})
		env := controllertest.New(t)
		c, _ := controller.New("c", controller.Reconciler[string](r), controller.Options[string]{Workers: 3, Registry: reg})
		env.Start(c)
		for _, k := range []string{"a", "b", "c", "d", "e"} {
			c.Queue().Add(k)
		}
		env.Settle()
		labels := map[string]string{"controller": "c"}
		if got := metricValue(t, reg, "controller_runtime_active_workers", labels); got != 3 {
			t.Errorf("active_workers = %v, want 3", got)
		}
		if got := metricValue(t, reg, "controller_runtime_max_concurrent_reconciles", labels); got != 3 {
			t.Errorf("max_concurrent_reconciles = %v, want 3", got)
		}
		close(release)
		env.Settle()
		if most.Load() != 3 || running.Load() != 0 {
			t.Errorf("at most %d reconciles ran at once, want 3; %d still running", most.Load(), running.Load())
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_total", map[string]string{"controller": "c", "result": "success"}); got != 5 {
			t.Errorf("success total = %v, want 5", got)
		}
	})
}
