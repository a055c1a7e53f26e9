package manager

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/spf13/pflag"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

func TestBindFlags(t *testing.T) {
	opts := Options{Lease: lease.Config{Namespace: "kube-system"}, LeaderElection: LeaderElection{Name: "ctrlkit"}}
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts.BindFlags(fs)

	if got := fs.Lookup("leader-elect-lease-duration").DefValue; got != "15s" {
		t.Errorf("lease duration default shown as %q, want 15s", got)
	}
	if got := fs.Lookup("leader-elect-resource-name").DefValue; got != "ctrlkit" {
		t.Errorf("resource name default shown as %q, want the preset ctrlkit", got)
	}
	err := fs.Parse([]string{
		"--leader-elect",
		"--leader-elect-resource-namespace=ops",
		"--leader-elect-lease-duration=30s",
		"--leader-elect-renew-deadline=20s",
		"--leader-elect-retry-period=4s",
		"--leader-elect-release-on-cancel",
		"--metrics-bind-address=:8080",
		"--health-probe-bind-address=:8081",
		"--graceful-shutdown-timeout=1m",
		"--metrics-secure",
		"--metrics-cert-path=/certs",
		"--metrics-key-name=key.pem",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := Options{
		MetricsAddr:             ":8080",
		HealthProbeAddr:         ":8081",
		GracefulShutdownTimeout: time.Minute,
		MetricsTLS:              MetricsTLS{SecureServing: true, CertDir: "/certs", CertName: "tls.crt", KeyName: "key.pem"},
		Lease: lease.Config{
			Namespace:     "ops",
			LeaseDuration: 30 * time.Second,
			RenewDeadline: 20 * time.Second,
			RetryPeriod:   4 * time.Second,
		},
		LeaderElection: LeaderElection{
			Enabled:         true,
			Name:            "ctrlkit",
			ReleaseOnCancel: true,
		},
	}
	if diff := cmp.Diff(want, opts, cmpopts.IgnoreFields(Options{}, "Logger")); diff != "" {
		t.Errorf("options after parsing (-want +got):\n%s", diff)
	}
	if err := fs.Parse([]string{"--leader-elect-lease-duration=soon"}); err == nil {
		t.Error("a malformed duration was accepted")
	}
}

// The same flags on spf13/pflag, as Kubernetes components spell them.
func TestBindFlagsOnPflag(t *testing.T) {
	var opts Options
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	opts.BindFlags(fs)
	err := fs.Parse([]string{
		"--leader-elect", // a bare boolean, as with the standard library
		"--leader-elect-resource-namespace", "ops",
		"--leader-elect-resource-name=mine",
		"--leader-elect-lease-duration=30s",
		"--pprof-bind-address=127.0.0.1:6060",
		"--metrics-bind-address=0",
	})
	if err != nil {
		t.Fatal(err)
	}
	le, l := opts.LeaderElection, opts.Lease
	if !le.Enabled || l.Namespace != "ops" || le.Name != "mine" || l.LeaseDuration != 30*time.Second ||
		l.RenewDeadline != lease.DefaultRenewDeadline || opts.PprofAddr != "127.0.0.1:6060" || opts.MetricsAddr != "0" {
		t.Errorf("options after parsing: %+v", opts)
	}
	if err := fs.Parse([]string{"-leader-elect"}); err == nil {
		t.Error("pflag accepted a single-dash long flag")
	}
}
