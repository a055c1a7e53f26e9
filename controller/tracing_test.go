package controller_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes() {
		m[kv.Key] = kv.Value
	}
	return m
}

// Each reconcile is one span named after the controller, carrying the
// key, the reconcile ID, the queue wait and the outcome, with an error
// status when it failed.
func TestTracingOneSpanPerReconcile(t *testing.T) {
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	q := workqueue.New(workqueue.Options[string]{Clock: clk})
	defer q.ShutDown()
	ids := map[string]string{}
	r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
		ids[key] = string(controller.ReconcileIDFromContext(ctx))
		switch key {
		case "requeue":
			return controller.Result{RequeueAfter: time.Minute}, nil
		case "fail":
			return controller.Result{}, errors.New("boom")
		case "terminal":
			return controller.Result{}, controller.TerminalError(errors.New("bad key"))
		case "panic":
			panic("oops")
		}
		return controller.Result{}, nil
	})
	c, err := controller.New("traced", r, controller.Options[string]{Queue: q, Clock: clk, Logger: logr.Discard(), TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"ok", "requeue", "fail", "terminal", "panic"}
	for _, k := range keys {
		q.Add(k)
	}
	clk.Step(3 * time.Second)
	for range keys {
		c.ProcessNextReady(context.Background())
	}

	want := map[string]string{"ok": controller.ResultSuccess, "requeue": controller.ResultRequeueAfter,
		"fail": controller.ResultError, "terminal": controller.ResultTerminal, "panic": controller.ResultPanic}
	spans := recorder.Ended()
	if len(spans) != len(keys) {
		t.Fatalf("%d spans, want one per reconcile (%d)", len(spans), len(keys))
	}
	for _, s := range spans {
		a := attrs(s)
		key := a[controller.AttrKey].AsString()
		if s.Name() != "traced" || a[controller.AttrController].AsString() != "traced" {
			t.Errorf("span %q controller %q; want both named after the controller", s.Name(), a[controller.AttrController].AsString())
		}
		if got := a[controller.AttrResult].AsString(); got != want[key] {
			t.Errorf("key %q: result %q, want %q", key, got, want[key])
		}
		if got := a[controller.AttrReconcileID].AsString(); got == "" || got != ids[key] {
			t.Errorf("key %q: reconcile ID %q, want the context's %q", key, got, ids[key])
		}
		if got := a[controller.AttrQueueWait].AsFloat64(); got != 3 {
			t.Errorf("key %q: queue wait %vs, want 3s on the fake clock", key, got)
		}
		failed := want[key] == controller.ResultError || want[key] == controller.ResultTerminal || want[key] == controller.ResultPanic
		if gotErr := s.Status().Code == codes.Error; gotErr != failed {
			t.Errorf("key %q: status %v, want an error status: %v", key, s.Status(), failed)
		}
		if key == "requeue" && a[controller.AttrRequeueAfter].AsFloat64() != 60 {
			t.Errorf("requeue_after %v, want 60", a[controller.AttrRequeueAfter])
		}
	}
}

// An API request made in the reconcile, through a client whose transport
// is wrapped with otelhttp, is a child of the reconcile's span.
func TestTracingAPICallIsChild(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"default","name":"settings"}}`))
	}))
	defer srv.Close()
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))

	cfg := &rest.Config{Host: srv.URL}
	// The one call: API requests become children of the reconcile's span.
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return otelhttp.NewTransport(rt) })
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
		_, err := client.CoreV1().ConfigMaps("default").Get(ctx, key, metav1.GetOptions{})
		return controller.Result{}, err
	})
	c, err := controller.New("traced", r, controller.Options[string]{Logger: logr.Discard(), TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Queue().ShutDown()
	c.Queue().Add("settings")
	c.ProcessNextReady(context.Background())

	spans := recorder.Ended()
	var reconcile, request sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.Name() == "traced" {
			reconcile = s
		} else {
			request = s
		}
	}
	if len(spans) != 2 || reconcile == nil || request == nil {
		t.Fatalf("spans %v: want the reconcile's and the request's", spans)
	}
	if request.Parent().SpanID() != reconcile.SpanContext().SpanID() || request.SpanContext().TraceID() != reconcile.SpanContext().TraceID() {
		t.Errorf("request span %q has parent %v, want the reconcile span %v", request.Name(), request.Parent().SpanID(), reconcile.SpanContext().SpanID())
	}
	if got := attrs(reconcile)[controller.AttrResult].AsString(); got != controller.ResultSuccess {
		t.Errorf("result %q, want success", got)
	}
}
