package managerflags

import (
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/leaderelection"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// Options are the flags every example controller-manager takes: the
// client's, plus the manager's own (manager.Options.BindFlags).
type Options struct {
	// Kubeconfig and Master locate the API server. Both empty means the
	// in-cluster configuration (the pod's service account).
	Kubeconfig string
	Master     string
	// KubeAPIQPS and KubeAPIBurst bound the client's request rate.
	KubeAPIQPS   float64
	KubeAPIBurst int
	// KubeAPIContentType is the encoding of requests to the API server.
	// kube-controller-manager's default, protobuf, costs the API server
	// and the client less CPU per object than JSON.
	KubeAPIContentType string

	// Manager holds leader election (on a Lease), the /metrics, /healthz
	// and /readyz addresses ("0" disables one) and the shutdown timeout.
	Manager manager.Options
}

// Defaults returns kube-controller-manager's defaults, with leaseName as the
// Lease's name.
func Defaults(leaseName string) Options {
	return Options{
		KubeAPIQPS:         20,
		KubeAPIBurst:       30,
		KubeAPIContentType: runtime.ContentTypeProtobuf,
		Manager: manager.Options{
			// kube-controller-manager always reports its clients' requests.
			RESTClientMetrics:       true,
			MetricsAddr:             ":8080",
			HealthProbeAddr:         ":8081",
			GracefulShutdownTimeout: manager.DefaultGracefulShutdownTimeout,
			Lease: lease.Config{
				Namespace:     "kube-system",
				LeaseDuration: lease.DefaultLeaseDuration,
				RenewDeadline: lease.DefaultRenewDeadline,
				RetryPeriod:   lease.DefaultRetryPeriod,
			},
			LeaderElection: manager.LeaderElection{
				Enabled:         true,
				Name:            leaseName,
				ReleaseOnCancel: true,
			},
		},
	}
}

// AddFlags registers o's fields with kube-controller-manager's spellings,
// using o's current values as defaults, in the sections kube-controller-
// manager's --help shows: "generic" (the API client), "leader election",
// "manager" (endpoints and shutdown) and "logging" (klog's).
func (o *Options) AddFlags(fss *cliflag.NamedFlagSets) {
	fs := fss.FlagSet("generic")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig file. Empty (with --master empty) means the in-cluster configuration.")
	fs.StringVar(&o.Master, "master", o.Master, "The address of the Kubernetes API server (overrides any value in kubeconfig).")
	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "QPS to use while talking with the Kubernetes API server.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst to use while talking with the Kubernetes API server.")
	fs.StringVar(&o.KubeAPIContentType, "kube-api-content-type", o.KubeAPIContentType, "Content type of requests sent to the API server.")
	o.Manager.BindLeaderElectionFlags(fss.FlagSet("leader election"))
	o.Manager.BindServerFlags(fss.FlagSet("manager"))
	AddLoggingFlags(fss.FlagSet("logging"))
}

// Validate reports every invalid value at once, naming the flags.
func (o *Options) Validate() error {
	var errs []error
	if o.KubeAPIQPS <= 0 {
		errs = append(errs, fmt.Errorf("--kube-api-qps must be positive, got %v", o.KubeAPIQPS))
	}
	if o.KubeAPIBurst < 1 {
		errs = append(errs, fmt.Errorf("--kube-api-burst must be at least 1, got %d", o.KubeAPIBurst))
	}
	if o.KubeAPIContentType != runtime.ContentTypeProtobuf && o.KubeAPIContentType != runtime.ContentTypeJSON {
		errs = append(errs, fmt.Errorf("--kube-api-content-type must be %s or %s, got %q", runtime.ContentTypeProtobuf, runtime.ContentTypeJSON, o.KubeAPIContentType))
	}
	// manager.New checks these too, naming fields; here the message names
	// the flags, before anything connects.
	if l := o.Manager.Lease; o.Manager.LeaderElection.Enabled {
		if l.Namespace == "" || o.Manager.LeaderElection.Name == "" {
			errs = append(errs, errors.New("--leader-elect-resource-namespace and --leader-elect-resource-name must not be empty with --leader-elect"))
		}
		if l.LeaseDuration < time.Second {
			errs = append(errs, fmt.Errorf("--leader-elect-lease-duration must be at least 1s, got %s", l.LeaseDuration))
		}
		if l.RenewDeadline <= 0 || l.RenewDeadline >= l.LeaseDuration {
			errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline (%s) must be positive and less than --leader-elect-lease-duration (%s)",
				l.RenewDeadline, l.LeaseDuration))
		}
		if l.RetryPeriod <= 0 || time.Duration(leaderelection.JitterFactor*float64(l.RetryPeriod)) >= l.RenewDeadline {
			errs = append(errs, fmt.Errorf("--leader-elect-retry-period (%s) times %.1f must be less than --leader-elect-renew-deadline (%s)",
				l.RetryPeriod, leaderelection.JitterFactor, l.RenewDeadline))
		}
	}
	return errors.Join(errs...)
}
