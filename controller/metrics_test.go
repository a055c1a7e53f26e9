package controller_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

func TestControllersShareARegistry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		ok := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
			return controller.Result{}, nil
		})
		failing := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
			return controller.Result{}, controller.TerminalError(errors.New("no"))
		})
		env := controllertest.New(t)
		a, err := controller.New("alpha", ok, controller.Options[string]{Registry: reg})
		if err != nil {
			t.Fatal(err)
		}
		b, err := controller.New("beta", failing, controller.Options[string]{Registry: reg})
		if err != nil {
			t.Fatalf("second controller on the same registry: %v", err)
		}
		env.Start(a, b)
		a.Queue().Add("x")
		a.Queue().Add("y")
		b.Queue().Add("x")
		env.Settle()

		for _, tc := range []struct {
			name   string
			labels map[string]string
			want   float64
		}{
			{"controller_runtime_reconcile_total", map[string]string{"controller": "alpha", "result": "success"}, 2},
			{"controller_runtime_reconcile_total", map[string]string{"controller": "alpha", "result": "error"}, 0},
			{"controller_runtime_reconcile_total", map[string]string{"controller": "alpha", "result": "requeue"}, 0},
			{"controller_runtime_reconcile_total", map[string]string{"controller": "beta", "result": "error"}, 1},
			{"controller_runtime_terminal_reconcile_errors_total", map[string]string{"controller": "alpha"}, 0},
			{"controller_runtime_terminal_reconcile_errors_total", map[string]string{"controller": "beta"}, 1},
			{"controller_runtime_reconcile_panics_total", map[string]string{"controller": "beta"}, 0},
			{"controller_runtime_reconcile_timeouts_total", map[string]string{"controller": "beta"}, 0},
			{"controller_runtime_reconcile_time_seconds", map[string]string{"controller": "alpha"}, 2},
			{"controller_runtime_active_workers", map[string]string{"controller": "alpha"}, 0},
			{"controller_runtime_max_concurrent_reconciles", map[string]string{"controller": "beta"}, 1},
			{"workqueue_adds_total", map[string]string{"name": "alpha"}, 2},
			{"workqueue_adds_total", map[string]string{"name": "beta"}, 1},
			{"workqueue_depth", map[string]string{"name": "alpha"}, 0},
		} {
			if got := metricValue(t, reg, tc.name, tc.labels); got != tc.want {
				t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
			}
		}
	})
}

func TestSeparateRegistriesDoNotShare(t *testing.T) {
	r1, r2 := prometheus.NewPedanticRegistry(), prometheus.NewPedanticRegistry()
	ok := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		return controller.Result{}, nil
	})
	for _, reg := range []*prometheus.Registry{r1, r2} {
		c, err := controller.New("same-name", ok, controller.Options[string]{Registry: reg})
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		c.Queue().Add("k")
		c.ProcessNextReady(context.Background())
		c.Queue().ShutDown()
	}
	for _, reg := range []*prometheus.Registry{r1, r2} {
		if got := metricValue(t, reg, "controller_runtime_reconcile_total", map[string]string{"controller": "same-name", "result": "success"}); got != 1 {
			t.Errorf("success total = %v, want 1 per registry", got)
		}
	}
}

func TestNewFailsOnAConflictingCollector(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "controller_runtime_reconcile_total", Help: "not ours"}))
	_, err := controller.New("c", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		return controller.Result{}, nil
	}), controller.Options[string]{Registry: reg})
	if err == nil {
		t.Fatal("New succeeded over a conflicting collector")
	}
}

// TestActiveWorkersOfAControllerBuiltTwice: a controller built again under
// the same name on the same registry shares the series instead of failing,
// and the series counts its running reconciles.
func TestActiveWorkersOfAControllerBuiltTwice(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	release := make(chan struct{})
	running := make(chan struct{})
	blocking := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		running <- struct{}{}
		<-release
		return controller.Result{}, nil
	})
	idle := controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		return controller.Result{}, nil
	})
	first, err := controller.New("twice", idle, controller.Options[string]{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Queue().ShutDown()
	second, err := controller.New("twice", blocking, controller.Options[string]{Registry: reg})
	if err != nil {
		t.Fatalf("New under a name already registered: %v", err)
	}
	defer second.Queue().ShutDown()
	labels := map[string]string{"controller": "twice"}

	second.Queue().Add("k")
	done := make(chan struct{})
	go func() {
		defer close(done)
		second.ProcessNextReady(context.Background())
	}()
	<-running
	if got := metricValue(t, reg, "controller_runtime_active_workers", labels); got != 1 {
		t.Errorf("active workers during a reconcile = %v, want 1", got)
	}
	close(release)
	<-done
	if got := metricValue(t, reg, "controller_runtime_active_workers", labels); got != 0 {
		t.Errorf("active workers after the reconcile = %v, want 0", got)
	}
}
