package manager

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Defaults for zero Options fields. The leader election timings are
// kube-controller-manager's.
const (
	DefaultLeaseDuration           = 15 * time.Second
	DefaultRenewDeadline           = 10 * time.Second
	DefaultRetryPeriod             = 2 * time.Second
	DefaultGracefulShutdownTimeout = 30 * time.Second
)

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
	// "/metrics". Decisions are cached for ten seconds. The endpoint stays
	// plain HTTP: tokens must not cross a network that others can read.
	MetricsAuth bool

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

	// LeaderElection, when enabled, runs the runnables that need it only
	// while this process holds a Lease.
	LeaderElection LeaderElection

	// Sharding, when its Ring is set, makes this replica a member of a
	// shard ring, which the Manager runs on every replica (Manager.Ring).
	Sharding Sharding

	// Client is the Manager's own connection to the API server. It writes
	// the events of EventRecorderFor and CoreV1EventRecorderFor, reviews
	// the tokens of /metrics requests with MetricsAuth, and is the default
	// LeaderElection.Client. Nil means events are only logged; MetricsAuth
	// then needs it.
	Client kubernetes.Interface
}

// LeaderElection configures leader election on a coordination.k8s.io Lease
// with client-go's leaderelection package.
type LeaderElection struct {
	// Enabled turns leader election on. When it is off, every runnable runs
	// at once.
	Enabled bool

	// Client reads and writes the Lease. Nil means Options.Client; one of
	// them is required when Enabled.
	Client kubernetes.Interface

	// Namespace and Name locate the Lease. Both are required when Enabled.
	Namespace string
	Name      string

	// ID identifies this candidate in the Lease. Empty means the host name
	// followed by "_" ("-" with Coordinated, where the ID names a
	// LeaseCandidate) and a random UUID, so that two Managers in one process
	// are distinct candidates.
	ID string

	// LeaseDuration is how long a lease lasts without renewal; others wait
	// this long before taking over an abandoned lease. The Lease stores it
	// in whole seconds, so it must be at least one second. Zero means
	// DefaultLeaseDuration.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader keeps trying to renew before it
	// gives up leadership. Zero means DefaultRenewDeadline.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts to acquire or renew. Zero
	// means DefaultRetryPeriod.
	RetryPeriod time.Duration

	// ReleaseOnCancel gives up the Lease when Run ends after a clean
	// shutdown, so that a standby takes over at once instead of after
	// LeaseDuration. The Lease is released only once every leader runnable
	// has stopped; after a shutdown timeout it is left to expire.
	ReleaseOnCancel bool

	// EventRecorder records "became leader" / "stopped leading" events on
	// the Lease. Nil with Options.Client set means the Manager's own
	// core/v1 recorder (CoreV1EventRecorderFor) with the Lease's Name as
	// the component, as kube-controller-manager records them; nil without
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
	if !o.LeaderElection.Enabled {
		return o, nil
	}
	if o.LeaderElection.Client == nil {
		o.LeaderElection.Client = o.Client
	}
	le, err := o.LeaderElection.withDefaults()
	o.LeaderElection = le
	return o, err
}

func (le LeaderElection) withDefaults() (LeaderElection, error) {
	if le.LeaseDuration == 0 {
		le.LeaseDuration = DefaultLeaseDuration
	}
	if le.RenewDeadline == 0 {
		le.RenewDeadline = DefaultRenewDeadline
	}
	if le.RetryPeriod == 0 {
		le.RetryPeriod = DefaultRetryPeriod
	}
	var errs []error
	if le.Client == nil {
		errs = append(errs, errors.New("LeaderElection.Client or Options.Client is required"))
	}
	if le.Namespace == "" {
		errs = append(errs, errors.New("LeaderElection.Namespace is required"))
	}
	if le.Name == "" {
		errs = append(errs, errors.New("LeaderElection.Name is required"))
	}
	if le.LeaseDuration < time.Second {
		errs = append(errs, fmt.Errorf("LeaderElection.LeaseDuration %s is below one second, the Lease's resolution", le.LeaseDuration))
	}
	if le.RenewDeadline <= 0 || le.RenewDeadline >= le.LeaseDuration {
		errs = append(errs, fmt.Errorf("LeaderElection.RenewDeadline %s must be positive and below LeaseDuration %s", le.RenewDeadline, le.LeaseDuration))
	}
	// The retry period may stretch by JitterFactor and must still fit in
	// the renew deadline.
	if le.RetryPeriod <= 0 || time.Duration(leaderelection.JitterFactor*float64(le.RetryPeriod)) >= le.RenewDeadline {
		errs = append(errs, fmt.Errorf("LeaderElection.RetryPeriod %s must be positive and, times %.1f, below RenewDeadline %s", le.RetryPeriod, leaderelection.JitterFactor, le.RenewDeadline))
	}
	var coordErrs []error
	le.Coordinated, coordErrs = le.Coordinated.withDefaults(le.ID)
	errs = append(errs, coordErrs...)
	if len(errs) > 0 {
		return le, fmt.Errorf("manager: invalid options: %w", errors.Join(errs...))
	}
	if le.ID == "" {
		host, err := os.Hostname()
		if err != nil {
			return le, fmt.Errorf("manager: LeaderElection.ID is empty and the host name is unknown: %w", err)
		}
		sep := "_"
		if le.Coordinated.Enabled {
			sep = "-" // the ID names the LeaseCandidate, where "_" is invalid
		}
		le.ID = host + sep + string(uuid.NewUUID())
	}
	return le, nil
}
