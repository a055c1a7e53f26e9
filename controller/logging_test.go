package controller_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
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
