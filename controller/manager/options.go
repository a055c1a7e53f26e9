package manager

import (
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/internal/leaseconfig"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
)

// DefaultGracefulShutdownTimeout is the shutdown bound of a zero
// Options.GracefulShutdownTimeout.
const DefaultGracefulShutdownTimeout = 30 * time.Second

// Options configure a Manager. The zero value is a Manager without leader
// election, HTTP endpoints or a caller-provided registry.
type Options struct {
	// Logger receives the Manager's logs and is put into the context of every
	// runnable (klog.FromContext finds it): controllers without a Logger of
	// their own log, and give their reconcilers, this one. Zero means
	// klog.Background(). logr.Discard() is the zero value, so it means the
	// same: to drop logs, use a sink that discards, such as funcr.New with an
	// empty function.
	Logger logr.Logger

	// Registry is served on /metrics; controllers register their metrics on
	// it (see Manager.Registry). Nil means a new registry owned by the
	// Manager, with the Go and process collectors registered.
	Registry *prometheus.Registry

	// MetricsAddr is the address of the /metrics endpoint, e.g. ":8080" or
	// ":0" (any free port; Manager.MetricsAddr tells which). Empty or "0"
	// disables it.
	MetricsAddr string

	// HealthProbeAddr is the address of /healthz and /readyz. Empty or "0"
	// disables them. It may equal MetricsAddr: one server then serves all three.
	HealthProbeAddr string

	// PprofAddr is the address of net/http/pprof's handlers, under
	// /debug/pprof/, e.g. "127.0.0.1:6060". Empty or "0" disables them,
	// the default: profiles expose the process's memory and cost CPU. It
	// may equal MetricsAddr or HealthProbeAddr: one server then serves
	// both.
	PprofAddr string

	// MetricsAuth requires each request to /metrics, and to /debug/pprof/,
	// to carry a bearer token that the API server authenticates
	// (TokenReview) and authorizes for the request's verb on its path as a
	// non-resource URL (SubjectAccessReview): "get" on "/metrics", as
	// kube-rbac-proxy and controller-runtime's authentication filter do.
	// Probes stay open. It needs Options.Client, allowed to create
	// tokenreviews and subjectaccessreviews (ClusterRole
	// system:auth-delegator); a scraper needs "get" on the nonResourceURL
	// "/metrics". Decisions are cached for ten seconds. Without
	// MetricsTLS the endpoint is plain HTTP and the token crosses the
	// network in clear text: in a cluster, enable both.
	MetricsAuth bool

	// MetricsTLS, with SecureServing, serves MetricsAddr over HTTPS, from
	// certificate files reloaded on change or a tls.Config. Zero means
	// plain HTTP, for local use only.
	MetricsTLS MetricsTLS

	// RESTClientMetrics puts client-go's request metrics on the registry:
	// rest_client_requests_total{code,method,host} and
	// rest_client_request_duration_seconds{verb,host}, named as in
	// kube-controller-manager. client-go keeps one hook for the whole
	// process, so they count every client of the process, and stay empty
	// if another adapter (component-base's, controller-runtime's) took the
	// hook first; the Manager logs that.
	RESTClientMetrics bool

	// GracefulShutdownTimeout bounds the whole shutdown sequence. Zero means
	// DefaultGracefulShutdownTimeout; a negative value waits forever.
	GracefulShutdownTimeout time.Duration

	// TracerProvider, when set, is given to the controllers the Manager
	// runs, in their Run context: each one without a provider of its own
	// (controller.Options.TracerProvider) makes a span of each reconcile.
	// Nil means no tracing. The Manager exports nothing itself: flushing
	// and shutting the provider down is the caller's, after Run.
	TracerProvider trace.TracerProvider

	// Lease is this process's identity and timings on Leases: those of
	// leader election and of its member of the shard ring. A nil
	// Lease.Client means Options.Client. Leader election or a ring needs
	// a client and a namespace; zero timings and an empty ID have
	// defaults (see lease.Config).
	Lease lease.Config

	// LeaderElection, when enabled, runs the runnables that need it only
	// while this process holds a Lease.
	LeaderElection LeaderElection

	// Sharding, when its Ring is set, makes this replica a member of a
	// shard ring, which the Manager runs on every replica (Manager.Ring).
	Sharding Sharding

	// WebhookServer, when set, serves webhooks on every replica
	// (GetWebhookServer returns it). Run starts it first and waits until it
	// listens before starting informers, so that the API server can call a
	// conversion webhook while answering their first list; it stops after
	// the informers, draining requests in flight. Nil means a default
	// server (port 9443, certificates in controller-runtime's directory)
	// created by the first call to GetWebhookServer, or none.
	WebhookServer *webhook.Server

	// Client is the Manager's own connection to the API server. It writes
	// the events of EventRecorderFor and EventsV1RecorderFor, reviews the
	// tokens of /metrics requests with MetricsAuth, and is the default
	// Lease.Client. Nil means events are only logged; MetricsAuth then
	// needs it.
	Client kubernetes.Interface

	// RESTConfig is the connection of the informers the Manager runs
	// itself: AddOptional's, of CustomResourceDefinitions (list and watch
	// on customresourcedefinitions). Nil is fine without AddOptional.
	RESTConfig *rest.Config
}

// LeaderElection configures leader election on a coordination.k8s.io Lease
// with client-go's leaderelection package. The Lease's namespace, this
// candidate's ID and the timings are Options.Lease's.
type LeaderElection struct {
	// Enabled turns leader election on. When it is off, every runnable runs
	// at once.
	Enabled bool

	// Name is the Lease's name, in Options.Lease.Namespace. Required when
	// Enabled.
	Name string

	// ReleaseOnCancel gives up the Lease when Run ends after a clean
	// shutdown, so that a standby takes over at once instead of after
	// LeaseDuration. The Lease is released only once every leader runnable
	// has stopped; after a shutdown timeout it is left to expire.
	ReleaseOnCancel bool

	// EventRecorder records "became leader" / "stopped leading" events on
	// the Lease. Nil with Options.Client set means the Manager's own
	// core/v1 recorder (EventRecorderFor) with the Lease's Name as the
	// component, as kube-controller-manager records them; nil without
	// Options.Client records none.
	EventRecorder resourcelock.EventRecorder

	// Coordinated, when enabled, lets the API server pick the leader among
	// the candidates (KEP-4355) instead of the first to take the Lease.
	Coordinated CoordinatedLeaderElection
}

// endpointAddr maps "0", the spelling of "off" in kube-controller-manager's
// and controller-runtime's bind-address flags, to the empty address.
func endpointAddr(addr string) string {
	if addr == "0" {
		return ""
	}
	return addr
}

// withDefaults fills zero fields and reports invalid combinations.
func (o Options) withDefaults() (Options, error) {
	if o.Logger.GetSink() == nil {
		o.Logger = klog.Background()
	}
	if o.GracefulShutdownTimeout == 0 {
		o.GracefulShutdownTimeout = DefaultGracefulShutdownTimeout
	}
	o.MetricsAddr, o.HealthProbeAddr = endpointAddr(o.MetricsAddr), endpointAddr(o.HealthProbeAddr)
	o.PprofAddr = endpointAddr(o.PprofAddr)
	if o.MetricsAuth && o.Client == nil {
		return o, errors.New("manager: invalid options: MetricsAuth needs Options.Client to review tokens")
	}
	o.MetricsTLS = o.MetricsTLS.withDefaults()
	if err := o.MetricsTLS.check(o.MetricsAddr, o.HealthProbeAddr); err != nil {
		return o, fmt.Errorf("manager: invalid options: %w", err)
	}
	if !o.LeaderElection.Enabled && o.Sharding.Ring == "" {
		return o, nil // nothing holds a Lease
	}
	var errs []error
	if o.Lease.Client == nil {
		o.Lease.Client = o.Client
	}
	lc, err := leaseconfig.Complete(o.Lease, "Options.Lease.")
	o.Lease = lc
	if err != nil {
		errs = append(errs, err)
	}
	if o.LeaderElection.Enabled {
		errs = append(errs, o.LeaderElection.check(o.Lease.ID)...)
		o.LeaderElection.Coordinated = o.LeaderElection.Coordinated.withDefaults()
	}
	if len(errs) > 0 {
		return o, fmt.Errorf("manager: invalid options: %w", errors.Join(errs...))
	}
	return o, nil
}

// check reports what is missing or wrong in an enabled LeaderElection
// whose candidate is id (empty when the Lease's options failed).
func (le LeaderElection) check(id string) []error {
	var errs []error
	if le.Name == "" {
		errs = append(errs, errors.New("LeaderElection.Name is required"))
	}
	return append(errs, le.Coordinated.check(id)...)
}
