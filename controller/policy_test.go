package controller_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoworkqueue "k8s.io/client-go/util/workqueue"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// startWithKey runs a controller of r, without informers, and adds key.
func startWithKey(t *testing.T, r controller.Reconciler[string], opts controller.Options[string], key string) (*controllertest.Env, *controller.Controller[string]) {
	t.Helper()
	env := controllertest.New(t)
	c, err := controller.New("test", r, opts)
	if err != nil {
		t.Fatal(err)
	}
	env.Start(c)
	c.Queue().Add(key)
	env.Settle()
	return env, c
}

func counting(f func(n int) (controller.Result, error)) (*controllertest.Recorder[string], *int) {
	n := new(int)
	return &controllertest.Recorder[string]{Reconciler: controller.ReconcilerFunc[string](
		func(ctx context.Context, key string) (controller.Result, error) {
			*n++
			return f(*n)
		})}, n
}

func TestSuccessForgetsTheKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		r, _ := counting(func(n int) (controller.Result, error) {
			if n == 1 {
				return controller.Result{}, errors.New("boom")
			}
			return controller.Result{}, nil
		})
		env, c := startWithKey(t, r, controller.Options[string]{Registry: reg,
			RateLimiter: clientgoworkqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)}, "k")
		if got := c.Queue().NumRequeues("k"); got != 1 {
			t.Fatalf("after an error NumRequeues = %d, want 1", got)
		}
		env.Advance(time.Second)
		if got := len(r.Calls()); got != 2 {
			t.Fatalf("calls = %d, want 2", got)
		}
		if got := c.Queue().NumRequeues("k"); got != 0 {
			t.Fatalf("after success NumRequeues = %d, want 0", got)
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_total", map[string]string{"controller": "test", "result": "success"}); got != 1 {
			t.Errorf("success total = %v, want 1", got)
		}
		env.Advance(time.Hour)
		if got := len(r.Calls()); got != 2 {
			t.Fatalf("a forgotten key was reconciled again: %d calls", got)
		}
	})
}

func TestErrorsRetryWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		var at []time.Duration
		start := time.Now()
		r, _ := counting(func(n int) (controller.Result, error) {
			at = append(at, time.Since(start))
			if n <= 3 {
				return controller.Result{}, errors.New("boom")
			}
			return controller.Result{}, nil
		})
		env, _ := startWithKey(t, r, controller.Options[string]{Registry: reg,
			RateLimiter: clientgoworkqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)}, "k")
		env.Advance(time.Hour)
		want := []time.Duration{0, time.Second, 3 * time.Second, 7 * time.Second}
		if len(at) != len(want) {
			t.Fatalf("reconciled at %v, want %v", at, want)
		}
		for i := range want {
			if at[i] != want[i] {
				t.Fatalf("reconciled at %v, want %v", at, want)
			}
		}
		labels := map[string]string{"controller": "test"}
		if got := metricValue(t, reg, "controller_runtime_reconcile_errors_total", labels); got != 3 {
			t.Errorf("errors_total = %v, want 3", got)
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_total", map[string]string{"controller": "test", "result": "error"}); got != 3 {
			t.Errorf("reconcile_total{error} = %v, want 3", got)
		}
	})
}

func TestMaxRetriesDropsTheKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := counting(func(int) (controller.Result, error) { return controller.Result{}, errors.New("boom") })
		env, _ := startWithKey(t, r, controller.Options[string]{MaxRetries: 2}, "k")
		env.Advance(time.Hour)
		if got := len(r.Calls()); got != 3 {
			t.Fatalf("calls = %d, want 3 (first try + 2 retries)", got)
		}
	})
}

// TestNoRetryLimit: zero MaxRetries, and UnlimitedRetries, retry a failing
// key past any limit (here 30 failures, then a success).
func TestNoRetryLimit(t *testing.T) {
	for _, maxRetries := range []int{0, controller.UnlimitedRetries} {
		synctest.Test(t, func(t *testing.T) {
			r, _ := counting(func(n int) (controller.Result, error) {
				if n <= 30 {
					return controller.Result{}, errors.New("boom")
				}
				return controller.Result{}, nil
			})
			env, _ := startWithKey(t, r, controller.Options[string]{MaxRetries: maxRetries,
				RateLimiter: clientgoworkqueue.NewTypedItemFastSlowRateLimiter[string](time.Second, time.Second, 0)}, "k")
			env.Advance(time.Hour)
			if got := len(r.Calls()); got != 31 {
				t.Fatalf("MaxRetries %d: calls = %d, want 31 (30 failures, then a success)", maxRetries, got)
			}
		})
	}
}

func TestTerminalErrorIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		r, _ := counting(func(int) (controller.Result, error) {
			return controller.Result{}, controller.TerminalError(errors.New("bad spec"))
		})
		env, c := startWithKey(t, r, controller.Options[string]{Registry: reg}, "k")
		env.Advance(time.Hour)
		if got := len(r.Calls()); got != 1 {
			t.Fatalf("calls = %d, want 1", got)
		}
		if got := c.Queue().NumRequeues("k"); got != 0 {
			t.Errorf("NumRequeues = %d, want 0", got)
		}
		labels := map[string]string{"controller": "test"}
		if got := metricValue(t, reg, "controller_runtime_terminal_reconcile_errors_total", labels); got != 1 {
			t.Errorf("terminal errors = %v, want 1", got)
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_errors_total", labels); got != 1 {
			t.Errorf("errors = %v, want 1", got)
		}
	})
}

func TestRequeueAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		r, _ := counting(func(n int) (controller.Result, error) {
			if n == 1 {
				return controller.Result{RequeueAfter: 10 * time.Second}, nil
			}
			return controller.Result{}, nil
		})
		env, _ := startWithKey(t, r, controller.Options[string]{Registry: reg}, "k")
		env.Advance(10*time.Second - time.Millisecond)
		if got := len(r.Calls()); got != 1 {
			t.Fatalf("calls before RequeueAfter = %d, want 1", got)
		}
		env.Advance(time.Millisecond)
		if got := len(r.Calls()); got != 2 {
			t.Fatalf("calls at RequeueAfter = %d, want 2", got)
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_total", map[string]string{"controller": "test", "result": "requeue_after"}); got != 1 {
			t.Errorf("requeue_after total = %v, want 1", got)
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_time_seconds", map[string]string{"controller": "test"}); got != 2 {
			t.Errorf("reconcile_time_seconds count = %v, want 2", got)
		}
	})
}

func TestPanicIsRecoveredCountedAndRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		r, _ := counting(func(n int) (controller.Result, error) {
			if n == 1 {
				panic("oops")
			}
			return controller.Result{}, nil
		})
		env, _ := startWithKey(t, r, controller.Options[string]{Registry: reg,
			RateLimiter: clientgoworkqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)}, "k")
		labels := map[string]string{"controller": "test"}
		if got := metricValue(t, reg, "controller_runtime_reconcile_panics_total", labels); got != 1 {
			t.Errorf("panics = %v, want 1", got)
		}
		env.Advance(time.Second)
		if got := r.Calls(); len(got) != 1 || got[0].Err != nil {
			t.Fatalf("retry after the panic: calls %+v, want one successful recorded call", got)
		}
	})
}

func TestPanicRecoveryCanBeDisabled(t *testing.T) {
	c, err := controller.New("test", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		panic("oops")
	}), controller.Options[string]{DisablePanicRecovery: true})
	if err != nil {
		t.Fatal(err)
	}
	c.Queue().Add("k")
	defer c.Queue().ShutDown()
	defer func() {
		if r := recover(); r != "oops" {
			t.Errorf("recovered %v, want the reconciler's panic", r)
		}
	}()
	c.ProcessNextReady(context.Background())
	t.Fatal("ProcessNextReady returned despite the panic")
}

func TestReconcileTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		reg := prometheus.NewPedanticRegistry()
		var hadDeadline bool
		r := &controllertest.Recorder[string]{Reconciler: controller.ReconcilerFunc[string](
			func(ctx context.Context, key string) (controller.Result, error) {
				_, hadDeadline = ctx.Deadline()
				<-ctx.Done()
				return controller.Result{}, controller.TerminalError(ctx.Err())
			})}
		env, _ := startWithKey(t, r, controller.Options[string]{Registry: reg, ReconcileTimeout: time.Minute}, "k")
		if got := len(r.Calls()); got != 0 {
			t.Fatalf("reconcile returned before its timeout")
		}
		env.Advance(time.Minute)
		if got := r.Calls(); len(got) != 1 || !errors.Is(got[0].Err, context.DeadlineExceeded) {
			t.Fatalf("calls %+v, want one ending in DeadlineExceeded", got)
		}
		if !hadDeadline {
			t.Error("reconcile context had no deadline")
		}
		if got := metricValue(t, reg, "controller_runtime_reconcile_timeouts_total", map[string]string{"controller": "test"}); got != 1 {
			t.Errorf("timeouts = %v, want 1", got)
		}
	})
}

func TestConflictsAreRetriedButLoggedQuietly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var errorLines, infoLines []string
		logged := func() (errs, infos []string) {
			mu.Lock()
			defer mu.Unlock()
			return slices.Clone(errorLines), slices.Clone(infoLines)
		}
		logger := funcr.New(func(prefix, args string) {
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(args, `"error"`) {
				errorLines = append(errorLines, args)
			} else {
				infoLines = append(infoLines, args)
			}
		}, funcr.Options{Verbosity: 2})
		conflict := apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "web", errors.New("the object has been modified"))
		r, n := counting(func(n int) (controller.Result, error) {
			if n == 1 {
				return controller.Result{}, conflict
			}
			return controller.Result{}, errors.New("boom")
		})
		env, c := startWithKey(t, r, controller.Options[string]{Logger: logger,
			RateLimiter: clientgoworkqueue.NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)}, "k")
		if got := c.Queue().NumRequeues("k"); got != 1 {
			t.Fatalf("after a conflict NumRequeues = %d, want 1 (retried with backoff)", got)
		}
		errs, infos := logged()
		if len(errs) != 0 {
			t.Fatalf("a conflict was logged as an error: %q", errs)
		}
		if !slices.ContainsFunc(infos, func(l string) bool { return strings.Contains(l, "conflict") }) {
			t.Fatalf("no V(2) line for the conflict in %q", infos)
		}
		env.Advance(time.Second)
		if *n != 2 {
			t.Fatalf("calls = %d, want 2", *n)
		}
		if errs, _ := logged(); len(errs) != 1 {
			t.Fatalf("other errors must still be logged as errors, got %q", errs)
		}
	})
}
