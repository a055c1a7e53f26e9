package otlptracing

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"

	"github.com/ctrlkit/ctrlkit/controller"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// collector is an OTLP/HTTP endpoint that keeps the trace export requests
// it receives.
type collector struct {
	mu       sync.Mutex
	paths    []string
	requests []*collectortrace.ExportTraceServiceRequest
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	req := &collectortrace.ExportTraceServiceRequest{}
	if err == nil {
		err = proto.Unmarshal(body, req)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	c.paths = append(c.paths, r.Method+" "+r.URL.Path)
	c.requests = append(c.requests, req)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/x-protobuf")
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	_, _ = w.Write(out)
}

// spans returns the requests' methods and paths, and the names of the
// spans received, with their service.name.
func (c *collector) spans() (paths, names, services []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	paths = c.paths
	for _, req := range c.requests {
		for _, rs := range req.GetResourceSpans() {
			for _, a := range rs.GetResource().GetAttributes() {
				if a.GetKey() == "service.name" {
					services = append(services, a.GetValue().GetStringValue())
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					names = append(names, s.GetName())
				}
			}
		}
	}
	return paths, names, services
}

// A controller given Run's provider exports its reconcile's span to the
// endpoint by the time Run returns: the shutdown flushes the batch.
func TestRunExportsReconcileSpans(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()

	o := Options{Endpoint: srv.URL}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	err := o.Run(t.Context(), "test-operator", func(tp trace.TracerProvider) error {
		if tp == nil {
			return errors.New("no TracerProvider with an endpoint")
		}
		reconciled := make(chan struct{})
		c, err := controller.New("webapp", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
			close(reconciled)
			return controller.Result{}, nil
		}), controller.Options[string]{TracerProvider: tp})
		if err != nil {
			return err
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- c.Run(ctx) }()
		c.Queue().Add("default/a")
		<-reconciled
		cancel()
		return <-done
	})
	if err != nil {
		t.Fatal(err)
	}
	paths, names, services := col.spans()
	if len(paths) == 0 || paths[0] != "POST /v1/traces" {
		t.Errorf("requests %q, want POST /v1/traces", paths)
	}
	if len(names) != 1 || names[0] != "webapp" {
		t.Errorf("spans %q, want the one reconcile's, webapp", names)
	}
	if len(services) == 0 || services[0] != "test-operator" {
		t.Errorf("service.name %q, want test-operator", services)
	}
}

// Without an endpoint there is no provider: the controllers trace nothing.
func TestRunWithoutEndpoint(t *testing.T) {
	var o Options
	called := false
	err := o.Run(t.Context(), "test-operator", func(tp trace.TracerProvider) error {
		called = true
		if tp != nil {
			t.Errorf("provider %v without --otlp-endpoint, want nil", tp)
		}
		return nil
	})
	if err != nil || !called {
		t.Errorf("Run: %v, called %v; want run called, no error", err, called)
	}
}

func TestValidate(t *testing.T) {
	for endpoint, ok := range map[string]bool{
		"":                           true,
		"http://collector:4318":      true,
		"https://collector/v1/trace": true,
		"collector:4318":             false,
		"ftp://collector":            false,
		"http://":                    false,
	} {
		if err := (&Options{Endpoint: endpoint}).Validate(); (err == nil) != ok {
			t.Errorf("--otlp-endpoint %q: %v, want valid %v", endpoint, err, ok)
		}
	}
}

// An endpoint without a path gets OTLP's traces path; one with a path keeps
// it, as OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is read.
func TestURL(t *testing.T) {
	for endpoint, want := range map[string]string{
		"http://collector:4318":        "http://collector:4318/v1/traces",
		"http://collector:4318/":       "http://collector:4318/v1/traces",
		"https://gw.example/otlp/v1/t": "https://gw.example/otlp/v1/t",
	} {
		o := Options{Endpoint: endpoint}
		if got, err := o.url(); err != nil || got != want {
			t.Errorf("url of %q = %q, %v; want %q", endpoint, got, err, want)
		}
	}
}
