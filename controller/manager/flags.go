package manager

import (
	"time"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

// FlagSet is what BindFlags needs of a set of command-line flags. The
// standard library's *flag.FlagSet and spf13/pflag's *pflag.FlagSet (the
// flags of kube-controller-manager and cobra commands, with "--" spellings)
// both have it.
type FlagSet interface {
	StringVar(p *string, name, value, usage string)
	BoolVar(p *bool, name string, value bool, usage string)
	DurationVar(p *time.Duration, name string, value time.Duration, usage string)
}

// BindFlags registers command-line flags for o on fs: BindServerFlags's and
// BindLeaderElectionFlags's. Each flag's default is o's current value
// (zero durations show the lease package's defaults), so set defaults
// before binding.
func (o *Options) BindFlags(fs FlagSet) {
	o.BindServerFlags(fs)
	o.BindLeaderElectionFlags(fs)
}

// BindServerFlags registers the flags of the Manager's endpoints and
// shutdown, with controller-runtime's names: --metrics-bind-address,
// --health-probe-bind-address, --pprof-bind-address and
// --graceful-shutdown-timeout; and MetricsTLS's with kubebuilder's:
// --metrics-secure, --metrics-cert-path, --metrics-cert-name and
// --metrics-key-name. Defaults are o's current values.
func (o *Options) BindServerFlags(fs FlagSet) {
	if o.GracefulShutdownTimeout == 0 {
		o.GracefulShutdownTimeout = DefaultGracefulShutdownTimeout
	}
	mt := &o.MetricsTLS
	*mt = mt.withDefaults()
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr,
		"Address of the /metrics endpoint, e.g. :8080. Empty or 0 disables it.")
	fs.StringVar(&o.HealthProbeAddr, "health-probe-bind-address", o.HealthProbeAddr,
		"Address of the /healthz and /readyz endpoints, e.g. :8081. Empty or 0 disables them.")
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr,
		"Address of the /debug/pprof/ endpoints, e.g. 127.0.0.1:6060. Empty or 0 disables them.")
	fs.DurationVar(&o.GracefulShutdownTimeout, "graceful-shutdown-timeout", o.GracefulShutdownTimeout,
		"How long shutdown may take before the process gives up on what is still running. Negative waits forever.")
	fs.BoolVar(&mt.SecureServing, "metrics-secure", mt.SecureServing,
		"Serve /metrics over HTTPS. Use it, with token authentication, in clusters; plain HTTP only for local use.")
	fs.StringVar(&mt.CertDir, "metrics-cert-path", mt.CertDir,
		"Directory of the metrics server's certificate and key, reloaded when they change. Empty serves a self-signed certificate.")
	fs.StringVar(&mt.CertName, "metrics-cert-name", mt.CertName,
		"File name of the metrics server's certificate in --metrics-cert-path.")
	fs.StringVar(&mt.KeyName, "metrics-key-name", mt.KeyName,
		"File name of the metrics server's key in --metrics-cert-path.")
}

// BindLeaderElectionFlags registers the leader election flags with
// kube-controller-manager's names: --leader-elect,
// --leader-elect-resource-name and --leader-elect-release-on-cancel set
// LeaderElection; --leader-elect-resource-namespace and the
// --leader-elect-* timings set Lease, which the shard ring uses too.
// Defaults are o's current values; zero durations show the lease
// package's defaults.
func (o *Options) BindLeaderElectionFlags(fs FlagSet) {
	le, l := &o.LeaderElection, &o.Lease
	orDefault := func(d *time.Duration, def time.Duration) {
		if *d == 0 {
			*d = def
		}
	}
	orDefault(&l.LeaseDuration, lease.DefaultLeaseDuration)
	orDefault(&l.RenewDeadline, lease.DefaultRenewDeadline)
	orDefault(&l.RetryPeriod, lease.DefaultRetryPeriod)

	fs.BoolVar(&le.Enabled, "leader-elect", le.Enabled,
		"Run controllers only while holding a Lease, so that several replicas can run for availability.")
	fs.StringVar(&l.Namespace, "leader-elect-resource-namespace", l.Namespace,
		"Namespace of the leader election Lease (and of the shard ring's Leases).")
	fs.StringVar(&le.Name, "leader-elect-resource-name", le.Name,
		"Name of the leader election Lease.")
	fs.DurationVar(&l.LeaseDuration, "leader-elect-lease-duration", l.LeaseDuration,
		"How long standbys wait, after the last renewal they observed, before taking over the Lease.")
	fs.DurationVar(&l.RenewDeadline, "leader-elect-renew-deadline", l.RenewDeadline,
		"How long the leader keeps trying to renew the Lease before it stops leading. Below the lease duration.")
	fs.DurationVar(&l.RetryPeriod, "leader-elect-retry-period", l.RetryPeriod,
		"How long candidates wait between attempts to acquire or renew the Lease.")
	fs.BoolVar(&le.ReleaseOnCancel, "leader-elect-release-on-cancel", le.ReleaseOnCancel,
		"Release the Lease after a clean shutdown so that a standby takes over at once.")
}
