package manager

import "time"

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
// LeaderElection.BindFlags's. Each flag's default is o's current value
// (zero durations show the package defaults), so set defaults before
// binding.
func (o *Options) BindFlags(fs FlagSet) {
	o.BindServerFlags(fs)
	o.LeaderElection.BindFlags(fs)
}

// BindServerFlags registers the flags of the Manager's endpoints and
// shutdown, with controller-runtime's names: --metrics-bind-address,
// --health-probe-bind-address, --pprof-bind-address and
// --graceful-shutdown-timeout. Defaults are o's current values.
func (o *Options) BindServerFlags(fs FlagSet) {
	if o.GracefulShutdownTimeout == 0 {
		o.GracefulShutdownTimeout = DefaultGracefulShutdownTimeout
	}
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", o.MetricsAddr,
		"Address of the /metrics endpoint, e.g. :8080. Empty or 0 disables it.")
	fs.StringVar(&o.HealthProbeAddr, "health-probe-bind-address", o.HealthProbeAddr,
		"Address of the /healthz and /readyz endpoints, e.g. :8081. Empty or 0 disables them.")
	fs.StringVar(&o.PprofAddr, "pprof-bind-address", o.PprofAddr,
		"Address of the /debug/pprof/ endpoints, e.g. 127.0.0.1:6060. Empty or 0 disables them.")
	fs.DurationVar(&o.GracefulShutdownTimeout, "graceful-shutdown-timeout", o.GracefulShutdownTimeout,
		"How long shutdown may take before the process gives up on what is still running. Negative waits forever.")
}

// BindFlags registers the leader election flags with
// kube-controller-manager's names (--leader-elect, --leader-elect-*).
// Defaults are le's current values; zero durations show the package
// defaults.
func (le *LeaderElection) BindFlags(fs FlagSet) {
	orDefault := func(d *time.Duration, def time.Duration) {
		if *d == 0 {
			*d = def
		}
	}
	orDefault(&le.LeaseDuration, DefaultLeaseDuration)
	orDefault(&le.RenewDeadline, DefaultRenewDeadline)
	orDefault(&le.RetryPeriod, DefaultRetryPeriod)

	fs.BoolVar(&le.Enabled, "leader-elect", le.Enabled,
		"Run controllers only while holding a Lease, so that several replicas can run for availability.")
	fs.StringVar(&le.Namespace, "leader-elect-resource-namespace", le.Namespace,
		"Namespace of the leader election Lease.")
	fs.StringVar(&le.Name, "leader-elect-resource-name", le.Name,
		"Name of the leader election Lease.")
	fs.DurationVar(&le.LeaseDuration, "leader-elect-lease-duration", le.LeaseDuration,
		"How long standbys wait, after the last renewal they observed, before taking over the Lease.")
	fs.DurationVar(&le.RenewDeadline, "leader-elect-renew-deadline", le.RenewDeadline,
		"How long the leader keeps trying to renew the Lease before it stops leading. Below the lease duration.")
	fs.DurationVar(&le.RetryPeriod, "leader-elect-retry-period", le.RetryPeriod,
		"How long candidates wait between attempts to acquire or renew the Lease.")
	fs.BoolVar(&le.ReleaseOnCancel, "leader-elect-release-on-cancel", le.ReleaseOnCancel,
		"Release the Lease after a clean shutdown so that a standby takes over at once.")
}
