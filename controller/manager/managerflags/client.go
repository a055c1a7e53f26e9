package managerflags

import (
	"context"
	"fmt"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/propagation"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// RESTConfig loads the client configuration: from --kubeconfig and
// --master, or in-cluster when both are empty, with the flags' rate limits
// and content type, and userAgent. Responses come uncompressed, as
// kube-controller-manager and kube-scheduler ask for them: beside the API
// server, gzip costs both ends CPU for little bandwidth saved, and since v1.37
// (WatchListCompression) an informer's whole watch stream would be
// compressed, event by event.
//
// With a TracerProvider in o.Manager, the transport is wrapped with
// otelhttp, the one call of package controller's "Tracing": a request made
// in a reconcile becomes a child of the reconcile's span, and carries the
// span in a W3C traceparent header, so that an API server that traces
// (APIServerTracing) puts its own spans in the same trace. Requests made
// outside reconciles (the informers' lists and watches) go to the global
// provider, a no-op unless the process sets one.
func (o *Options) RESTConfig(userAgent string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags(o.Master, o.Kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("loading client configuration (--kubeconfig %q, --master %q): %w", o.Kubeconfig, o.Master, err)
	}
	cfg.QPS = float32(o.KubeAPIQPS)
	cfg.Burst = o.KubeAPIBurst
	cfg.ContentType = o.KubeAPIContentType
	cfg.DisableCompression = true
	cfg = rest.AddUserAgent(cfg, userAgent)
	if o.Manager.TracerProvider != nil {
		cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
			return otelhttp.NewTransport(rt, otelhttp.WithPropagators(propagation.TraceContext{}))
		})
	}
	return cfg, nil
}

// ManagerOptions returns the manager's options from the flags, with
// client as the manager's connection: it reads and writes the Leases (the
// manager's default Lease.Client) and writes the events of the manager's
// recorders, leadership changes among them. With --metrics-secure it also
// reviews the tokens of /metrics requests (MetricsAuth, with client), as
// kubebuilder's --metrics-secure adds authentication and authorization:
// HTTPS is there to keep those tokens secret.
func (o *Options) ManagerOptions(client kubernetes.Interface) manager.Options {
	opts := o.Manager
	opts.Client = client
	if opts.MetricsTLS.SecureServing {
		opts.MetricsAuth = true
	}
	return opts
}

// NewEventRecorder returns a recorder that writes core/v1 Events as
// component, the way kube-controller-manager's controllers do, and a
// function that stops it; call it once nothing records any more. Events
// need RBAC "create" and "patch" on core "events" (patch: repeated events
// are counted on one object). Commands with a manager use its recorders
// (manager.EventRecorderFor), which it stops itself.
func NewEventRecorder(ctx context.Context, client kubernetes.Interface, component string) (record.EventRecorder, func()) {
	// The broadcaster takes its logger from ctx but must outlive ctx's
	// cancellation: events recorded during the graceful shutdown still count.
	broadcaster := record.NewBroadcaster(record.WithContext(context.WithoutCancel(ctx)))
	broadcaster.StartStructuredLogging(3)
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events("")})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: component})
	return recorder, broadcaster.Shutdown
}

// Client is a clientset for the API server the flags point at, built from
// RESTConfig(userAgent).
func (o *Options) Client(userAgent string) (kubernetes.Interface, error) {
	cfg, err := o.RESTConfig(userAgent)
	if err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	return client, nil
}
