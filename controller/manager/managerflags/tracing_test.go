package managerflags

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// With a TracerProvider, a request made in a span (a reconcile's) is its
// child, and tells the API server the trace; without one, the transport is
// left alone and nothing is sent.
func TestRESTConfigTracesRequestsInSpans(t *testing.T) {
	traceparents := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		traceparents <- r.Header.Get("Traceparent")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37"}`))
	}))
	defer srv.Close()
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	defer func() { _ = tp.Shutdown(t.Context()) }()

	o := Defaults("lease")
	o.Kubeconfig = writeKubeconfig(t, strings.Replace(kubeconfig, "https://127.0.0.1:6443", srv.URL, 1))
	o.KubeAPIContentType = "application/json"
	o.Manager.TracerProvider = tp
	client, err := o.Client("tester")
	if err != nil {
		t.Fatal(err)
	}
	ctx, reconcile := tp.Tracer("test").Start(t.Context(), "reconcile")
	_, err = client.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	reconcile.End()
	if err != nil {
		t.Fatal(err)
	}
	header := <-traceparents
	if want := reconcile.SpanContext().TraceID().String(); !strings.Contains(header, want) {
		t.Errorf("traceparent %q, want the reconcile's trace %s", header, want)
	}
	var children int
	for _, s := range recorder.Ended() {
		if s.Name() != "reconcile" {
			children++
			if s.Parent().SpanID() != reconcile.SpanContext().SpanID() {
				t.Errorf("span %q has parent %s, want the reconcile %s", s.Name(), s.Parent().SpanID(), reconcile.SpanContext().SpanID())
			}
		}
	}
	if children != 1 {
		t.Errorf("%d request spans, want 1", children)
	}

	o.Manager.TracerProvider = nil
	if client, err = o.Client("tester"); err != nil {
		t.Fatal(err)
	}
	if _, err = client.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw(); err != nil {
		t.Fatal(err)
	}
	if header := <-traceparents; header != "" {
		t.Errorf("traceparent %q without a TracerProvider, want none", header)
	}
}
