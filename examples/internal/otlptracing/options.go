package otlptracing

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// tracesPath is OTLP/HTTP's path for traces, appended to an endpoint given
// without a path, as OTEL_EXPORTER_OTLP_ENDPOINT is read.
const tracesPath = "/v1/traces"

// ShutdownTimeout bounds the flush of the last spans when the binary stops.
const ShutdownTimeout = 5 * time.Second

// Options is the tracing flag.
type Options struct {
	// Endpoint is the collector's OTLP/HTTP URL, e.g.
	// http://otel-collector:4318 (the path defaults to /v1/traces; https
	// uses TLS). Empty means no tracing.
	Endpoint string
}

// AddFlags registers --otlp-endpoint on fs.
func (o *Options) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Endpoint, "otlp-endpoint", o.Endpoint,
		"The OTLP/HTTP URL of an OpenTelemetry collector, e.g. http://otel-collector:4318: each reconcile, and the API requests it makes, becomes a span sent there. Empty means no tracing.")
}

// Validate checks that Endpoint, when set, is an http or https URL.
func (o *Options) Validate() error {
	_, err := o.url()
	return err
}

// url is Endpoint with the traces path when it has none.
func (o *Options) url() (string, error) {
	if o.Endpoint == "" {
		return "", nil
	}
	u, err := url.Parse(o.Endpoint)
	if err != nil {
		return "", fmt.Errorf("--otlp-endpoint: %w", err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("--otlp-endpoint %q must be an http:// or https:// URL with a host", o.Endpoint)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = tracesPath
	}
	return u.String(), nil
}

// NewTracerProvider returns an SDK TracerProvider that exports to Endpoint
// over OTLP/HTTP, in batches, with a resource naming service; nil when
// Endpoint is empty. Nothing connects until the first batch is exported.
// The caller shuts it down, which exports what is left.
func (o *Options) NewTracerProvider(ctx context.Context, service string) (*sdktrace.TracerProvider, error) {
	endpoint, err := o.url()
	if err != nil || endpoint == "" {
		return nil, err
	}
	exporter, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("creating the OTLP exporter for %s: %w", endpoint, err)
	}
	res, err := resource.Merge(resource.Default(), resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceName(service)))
	if err != nil {
		return nil, errors.Join(fmt.Errorf("building the tracing resource: %w", err), exporter.Shutdown(ctx))
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)), nil
}

// Run calls run with the TracerProvider of NewTracerProvider, or nil
// without an endpoint, and, once run has returned, shuts the provider down,
// flushing the spans of the last reconciles (within ShutdownTimeout, even
// though ctx has ended by then).
func (o *Options) Run(ctx context.Context, service string, run func(tp trace.TracerProvider) error) error {
	tp, err := o.NewTracerProvider(ctx, service)
	if err != nil {
		return err
	}
	if tp == nil {
		// Not tp: a nil *TracerProvider would be a non-nil interface.
		return run(nil)
	}
	err = run(tp)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if serr := tp.Shutdown(sctx); serr != nil {
		err = errors.Join(err, fmt.Errorf("flushing the traces: %w", serr))
	}
	return err
}
