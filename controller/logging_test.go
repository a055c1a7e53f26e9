package controller_test

import (
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

func TestReconcileContextCarriesALogger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		type line struct{ prefix, args string }
		var lines []line
		logger := funcr.New(func(prefix, args string) { lines = append(lines, line{prefix, args}) }, funcr.Options{LogCaller: funcr.All})
		r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			log := logr.FromContextOrDiscard(ctx)
			log.Info("hello")
			log.WithName("sub").WithValues("extra", 1).Info("derived")
			return controller.Result{}, nil
		})
		env := controllertest.New(t)
		c, _ := controller.New("logs", controller.Reconciler[string](r), controller.Options[string]{Logger: logger})
		env.Start(c)
		lines = nil
		c.Queue().Add("ns/one")
		env.Settle()
		c.Queue().Add("ns/one")
		env.Settle()
		if len(lines) != 4 {
			t.Fatalf("logged %d lines, want 2: %v", len(lines), lines)
		}
		for _, l := range lines {
			for _, want := range []string{`"controller"="logs"`, `"key"="ns/one"`, `"reconcileID"="`, `"file"="logging_test.go"`} {
				if !strings.Contains(l.args, want) {
					t.Errorf("log line %s lacks %s", l.args, want)
				}
			}
		}
		if !strings.Contains(lines[1].args, `"extra"=1`) || lines[1].prefix != "sub" {
			t.Errorf("derived logger line %+v lacks its name or values", lines[1])
		}
		if a, b := reconcileID(lines[0].args), reconcileID(lines[2].args); a == "" || a == b || reconcileID(lines[1].args) != a {
			t.Errorf("reconcileIDs %q and %q, want two distinct UUIDs", a, b)
		}
	})
}

var reconcileIDPattern = regexp.MustCompile(`"reconcileID"="([0-9a-f-]{36})"`)

// reconcileID returns the reconcileID of a funcr log line, or "" if none.
func reconcileID(args string) string {
	if m := reconcileIDPattern.FindStringSubmatch(args); m != nil {
		return m[1]
	}
	return ""
}

type ctxKey struct{}

func TestReconcileContextKeepsParentValuesAndWorksWithKlog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var gotValue any
		var klogSink, logrSink logr.LogSink
		r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			gotValue = ctx.Value(ctxKey{})
			klogSink = klog.FromContext(ctx).GetSink()
			logrSink = logr.FromContextOrDiscard(ctx).GetSink()
			return controller.Result{}, nil
		})
		c, err := controller.New("values", r, controller.Options[string]{Logger: funcr.New(func(string, string) {}, funcr.Options{})})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.WithValue(context.Background(), ctxKey{}, "parent"))
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()
		c.Queue().Add("k")
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if gotValue != "parent" {
			t.Errorf("reconcile context value = %v, want the Run context's", gotValue)
		}
		if klogSink == nil || klogSink != logrSink {
			t.Errorf("klog.FromContext sink %T, logr.FromContext sink %T: want the same reconcile logger", klogSink, logrSink)
		}
	})
}

func TestReconcileIDFromContext(t *testing.T) {
	var lines []string
	logger := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{})
	var ids []types.UID
	c, err := controller.New("ids", controller.ReconcilerFunc[string](func(ctx context.Context, _ string) (controller.Result, error) {
		ids = append(ids, controller.ReconcileIDFromContext(ctx))
		logr.FromContextOrDiscard(ctx).Info("hello")
		return controller.Result{}, nil
	}), controller.Options[string]{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Queue().ShutDown()
	for range 2 {
		c.Queue().Add("k")
		c.ProcessNextReady(context.Background())
	}
	if len(ids) != 2 || len(lines) != 2 || ids[0] == ids[1] {
		t.Fatalf("reconcile IDs %q, lines %q: want two distinct IDs, one line each", ids, lines)
	}
	for i, id := range ids {
		if reconcileID(lines[i]) != string(id) {
			t.Errorf("ReconcileIDFromContext = %q, logged reconcileID in %s", id, lines[i])
		}
	}
	if id := controller.ReconcileIDFromContext(context.Background()); id != "" {
		t.Errorf("ReconcileIDFromContext outside a reconcile = %q, want \"\"", id)
	}
}

// TestZeroLoggerIsRunContexts: without Options.Logger, the controller logs
// with the logger of Run's context (a manager's), adding its values.
func TestZeroLoggerIsRunContexts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var lines []string
		logger := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{})
		c, err := controller.New("fromctx", controller.ReconcilerFunc[string](func(ctx context.Context, _ string) (controller.Result, error) {
			klog.FromContext(ctx).Info("hello")
			return controller.Result{}, nil
		}), controller.Options[string]{})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(logr.NewContext(context.Background(), logger))
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()
		c.Queue().Add("ns/k")
		synctest.Wait()
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.Contains(l, `"msg"="hello"`) && strings.Contains(l, `"controller"="fromctx"`) &&
				strings.Contains(l, `"key"="ns/k"`) && reconcileID(l) != ""
		}) {
			t.Errorf("no reconcile line with the controller's values through Run's logger in %q", lines)
		}
	})
}

// TestDiscardLoggerDiscards: logr.Discard() (the zero Logger), outside a
// context with a logger, logs nothing, not even through klog's global
// logger, although Reconcile fails and logs itself.
func TestDiscardLoggerDiscards(t *testing.T) {
	var lines []string
	klog.SetLogger(funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{}))
	defer klog.ClearLogger()
	c, err := controller.New("quiet", controller.ReconcilerFunc[string](func(ctx context.Context, _ string) (controller.Result, error) {
		klog.FromContext(ctx).Info("hello")
		return controller.Result{}, controller.TerminalError(errors.New("boom"))
	}), controller.Options[string]{Logger: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Queue().ShutDown()
	c.Queue().Add("k")
	if !c.ProcessNextReady(context.Background()) {
		t.Fatal("no key processed")
	}
	klog.Background().Info("probe") // the global logger does record
	if len(lines) != 1 {
		t.Errorf("logged %q, want only the probe", lines)
	}
}

// At V(5) a reconcile's first and last lines are "Reconciling" and
// "Reconciled" (as controller-runtime's), with its key and reconcileID:
// they bound when the key was being reconciled.
func TestReconcileStartAndEndAreLoggedAtV5(t *testing.T) {
	var lines []string
	logger := funcr.New(func(_, args string) { lines = append(lines, args) }, funcr.Options{Verbosity: 5})
	c, err := controller.New("v5", controller.ReconcilerFunc[string](func(ctx context.Context, _ string) (controller.Result, error) {
		logr.FromContextOrDiscard(ctx).Info("inside")
		return controller.Result{}, nil
	}), controller.Options[string]{Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Queue().ShutDown()
	c.Queue().Add("ns/k")
	c.ProcessNextReady(context.Background())
	var msgs []string
	for _, l := range lines {
		msgs = append(msgs, regexp.MustCompile(`"msg"="([^"]*)"`).FindStringSubmatch(l)[1])
		if !strings.Contains(l, `"key"="ns/k"`) || reconcileID(l) != reconcileID(lines[0]) {
			t.Errorf("line %s lacks the key or the reconcile's ID", l)
		}
	}
	if want := []string{"Reconciling", "inside", "Reconciled"}; !slices.Equal(msgs, want) {
		t.Errorf("logged %q, want %q", msgs, want)
	}
}
