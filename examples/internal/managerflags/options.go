package managerflags

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// Options are the flags every example controller-manager takes.
type Options struct {
	// Kubeconfig and Master locate the API server. Both empty means the
	// in-cluster configuration (the pod's service account).
	Kubeconfig string
	Master     string
	// KubeAPIQPS and KubeAPIBurst bound the client's request rate.
	KubeAPIQPS   float64
	KubeAPIBurst int

	// LeaderElect runs the controllers only while this process holds the
	// Lease LeaderElectResourceNamespace/LeaderElectResourceName.
	LeaderElect                  bool
	LeaderElectLeaseDuration     time.Duration
	LeaderElectRenewDeadline     time.Duration
	LeaderElectRetryPeriod       time.Duration
	LeaderElectResourceNamespace string
	LeaderElectResourceName      string

	// MetricsBindAddress serves /metrics; HealthProbeBindAddress serves
	// /healthz and /readyz. "0" or "" disables one.
	MetricsBindAddress     string
	HealthProbeBindAddress string
}

// Defaults returns kube-controller-manager's defaults, with leaseName as the
// Lease's name.
func Defaults(leaseName string) Options {
	return Options{
		KubeAPIQPS:                   20,
		KubeAPIBurst:                 30,
		LeaderElect:                  true,
		LeaderElectLeaseDuration:     manager.DefaultLeaseDuration,
		LeaderElectRenewDeadline:     manager.DefaultRenewDeadline,
		LeaderElectRetryPeriod:       manager.DefaultRetryPeriod,
		LeaderElectResourceNamespace: "kube-system",
		LeaderElectResourceName:      leaseName,
		MetricsBindAddress:           ":8080",
		HealthProbeBindAddress:       ":8081",
	}
}

// AddFlags registers o's fields on fs with kube-controller-manager's
// spellings, using o's current values as defaults, and klog's flags
// (-v, --vmodule, ...).
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to a kubeconfig file. Empty (with --master empty) means the in-cluster configuration.")
	fs.StringVar(&o.Master, "master", o.Master, "The address of the Kubernetes API server (overrides any value in kubeconfig).")
	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "QPS to use while talking with the Kubernetes API server.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst to use while talking with the Kubernetes API server.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "Start a leader election client and gain leadership before running the controllers. Enable this when running replicated components for high availability.")
	fs.DurationVar(&o.LeaderElectLeaseDuration, "leader-elect-lease-duration", o.LeaderElectLeaseDuration, "The duration that non-leader candidates will wait after observing a leadership renewal until attempting to acquire leadership.")
	fs.DurationVar(&o.LeaderElectRenewDeadline, "leader-elect-renew-deadline", o.LeaderElectRenewDeadline, "The interval between attempts by the acting leader to renew a leadership slot before it stops leading. Must be less than the lease duration.")
	fs.DurationVar(&o.LeaderElectRetryPeriod, "leader-elect-retry-period", o.LeaderElectRetryPeriod, "The duration the clients should wait between attempting acquisition and renewal of a leadership.")
	fs.StringVar(&o.LeaderElectResourceNamespace, "leader-elect-resource-namespace", o.LeaderElectResourceNamespace, "The namespace of the Lease used for leader election.")
	fs.StringVar(&o.LeaderElectResourceName, "leader-elect-resource-name", o.LeaderElectResourceName, "The name of the Lease used for leader election.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, `The address /metrics is served on, e.g. ":8080". "0" disables it.`)
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, `The address /healthz and /readyz are served on, e.g. ":8081". "0" disables them.`)
	klog.InitFlags(fs)
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
	if o.LeaderElect {
		if o.LeaderElectResourceNamespace == "" || o.LeaderElectResourceName == "" {
			errs = append(errs, errors.New("--leader-elect-resource-namespace and --leader-elect-resource-name must not be empty with --leader-elect"))
		}
		if o.LeaderElectLeaseDuration < time.Second {
			errs = append(errs, fmt.Errorf("--leader-elect-lease-duration must be at least 1s, got %s", o.LeaderElectLeaseDuration))
		}
		if o.LeaderElectRenewDeadline <= 0 || o.LeaderElectRenewDeadline >= o.LeaderElectLeaseDuration {
			errs = append(errs, fmt.Errorf("--leader-elect-renew-deadline (%s) must be positive and less than --leader-elect-lease-duration (%s)",
				o.LeaderElectRenewDeadline, o.LeaderElectLeaseDuration))
		}
		if o.LeaderElectRetryPeriod <= 0 || time.Duration(leaderelection.JitterFactor*float64(o.LeaderElectRetryPeriod)) >= o.LeaderElectRenewDeadline {
			errs = append(errs, fmt.Errorf("--leader-elect-retry-period (%s) times %.1f must be less than --leader-elect-renew-deadline (%s)",
				o.LeaderElectRetryPeriod, leaderelection.JitterFactor, o.LeaderElectRenewDeadline))
		}
	}
	return errors.Join(errs...)
}

// Parse parses args into fs and checks that no positional arguments are
// left. The FlagSet must use flag.ContinueOnError. A request for help
// returns flag.ErrHelp.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: this command takes flags only", fs.Args())
	}
	return nil
}

// bindAddress maps the "0" spelling of "disabled" to the empty address the
// manager understands.
func bindAddress(addr string) string {
	if addr == "0" {
		return ""
	}
	return addr
}
