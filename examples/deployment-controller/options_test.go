package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
)

func TestParseOptionsDefaultsAreKubeControllerManagers(t *testing.T) {
	o, err := parseOptions(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := &options{
		Options: managerflags.Options{
			KubeAPIQPS:         20,
			KubeAPIBurst:       30,
			KubeAPIContentType: "application/vnd.kubernetes.protobuf",
			Manager: manager.Options{
				RESTClientMetrics:       true,
				MetricsAddr:             ":8080",
				HealthProbeAddr:         ":8081",
				GracefulShutdownTimeout: 30 * time.Second,
				MetricsTLS:              manager.MetricsTLS{CertName: "tls.crt", KeyName: "tls.key"},
				Lease: lease.Config{
					LeaseDuration: 15 * time.Second,
					RenewDeadline: 10 * time.Second,
					RetryPeriod:   2 * time.Second,
					Namespace:     "kube-system",
				},
				LeaderElection: manager.LeaderElection{
					Enabled:         true,
					Name:            "ctrlkit-deployment-controller",
					ReleaseOnCancel: true,
				},
			},
		},
		ConcurrentDeploymentSyncs: 5,
		NamespaceLanes:            true,
	}
	if diff := cmp.Diff(want, o, cmpopts.IgnoreFields(manager.Options{}, "Logger")); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestParseOptionsReadsEveryFlag(t *testing.T) {
	o, err := parseOptions([]string{
		"--kubeconfig=/etc/kubeconfig",
		"--master", "https://10.0.0.1:6443",
		"--concurrent-deployment-syncs=50",
		"--kube-api-qps=200.5",
		"--kube-api-burst=300",
		"--kube-api-content-type=application/json",
		"--leader-elect=false",
		"--leader-elect-lease-duration=30s",
		"--leader-elect-renew-deadline=20s",
		"--leader-elect-retry-period=5s",
		"--leader-elect-resource-namespace=ctrlkit-system",
		"--leader-elect-resource-name=mine",
		"--metrics-bind-address=0",
		"--metrics-secure",
		"--metrics-cert-path=/etc/metrics-certs",
		"--metrics-cert-name=cert.pem",
		"--metrics-key-name=key.pem",
		"--health-probe-bind-address=127.0.0.1:9443",
		"--shard-ring=deployments",
		"--debounce=2s",
		"--debounce-max-wait=30s",
		"--namespace-lanes=false",
		"--otlp-endpoint=http://otel-collector:4318",
	}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := &options{
		Options: managerflags.Options{
			Kubeconfig:         "/etc/kubeconfig",
			Master:             "https://10.0.0.1:6443",
			KubeAPIQPS:         200.5,
			KubeAPIBurst:       300,
			KubeAPIContentType: "application/json",
			Manager: manager.Options{
				RESTClientMetrics:       true,
				MetricsAddr:             "0",
				HealthProbeAddr:         "127.0.0.1:9443",
				GracefulShutdownTimeout: 30 * time.Second,
				MetricsTLS: manager.MetricsTLS{SecureServing: true, CertDir: "/etc/metrics-certs",
					CertName: "cert.pem", KeyName: "key.pem"},
				Lease: lease.Config{
					LeaseDuration: 30 * time.Second,
					RenewDeadline: 20 * time.Second,
					RetryPeriod:   5 * time.Second,
					Namespace:     "ctrlkit-system",
				},
				LeaderElection: manager.LeaderElection{
					Enabled:         false,
					Name:            "mine",
					ReleaseOnCancel: true,
				},
				Sharding: manager.Sharding{Ring: "deployments"},
			},
		},
		ConcurrentDeploymentSyncs: 50,
		Debounce:                  2 * time.Second,
		DebounceMaxWait:           30 * time.Second,
		NamespaceLanes:            false,
	}
	want.Tracing.Endpoint = "http://otel-collector:4318"
	if diff := cmp.Diff(want, o, cmpopts.IgnoreFields(manager.Options{}, "Logger")); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if co := o.controllerOptions(); co.Debounce != 2*time.Second || co.DebounceMaxWait != 30*time.Second || co.Workers != 50 {
		t.Errorf("controller options %+v: want 50 workers, debounce 2s, max wait 30s", co)
	}
	mo := o.ManagerOptions(nil)
	if (mo.MetricsAddr != "" && mo.MetricsAddr != "0") || mo.HealthProbeAddr != "127.0.0.1:9443" || mo.LeaderElection.Enabled {
		t.Errorf("manager options %+v: want metrics off, probes on 127.0.0.1:9443, no leader election", mo)
	}
}

func TestParseOptionsRejectsBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want []string // substrings of the error
	}{
		{[]string{"--no-such-flag"}, []string{"unknown flag: --no-such-flag"}},
		{[]string{"--concurrent-deployment-syncs=many"}, []string{"concurrent-deployment-syncs", "invalid argument"}},
		{[]string{"--concurrent-deployment-syncs=0"}, []string{"--concurrent-deployment-syncs must be at least 1, got 0"}},
		{[]string{"--kube-api-qps=-1", "--kube-api-burst=0"}, []string{"--kube-api-qps must be positive", "--kube-api-burst must be at least 1"}},
		{[]string{"--kube-api-content-type=text/yaml"}, []string{`--kube-api-content-type must be application/vnd.kubernetes.protobuf or application/json, got "text/yaml"`}},
		{[]string{"--leader-elect-renew-deadline=20s"}, []string{"--leader-elect-renew-deadline (20s) must be positive and less than --leader-elect-lease-duration (15s)"}},
		{[]string{"--leader-elect-retry-period=9s"}, []string{"--leader-elect-retry-period (9s)"}},
		{[]string{"--leader-elect-resource-name="}, []string{"--leader-elect-resource-name must not be empty"}},
		{[]string{"--debounce=-1s"}, []string{"--debounce (-1s) and --debounce-max-wait (0s) must not be negative"}},
		{[]string{"--debounce=10s", "--debounce-max-wait=5s"}, []string{"--debounce-max-wait (5s) must not be below --debounce (10s)"}},
		{[]string{"--debounce-max-wait=5s"}, []string{"--debounce-max-wait needs --debounce"}},
		{[]string{"--otlp-endpoint=collector:4318"}, []string{"--otlp-endpoint"}},
		{[]string{"stray"}, []string{`unexpected arguments ["stray"]`}},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		_, err := parseOptions(tt.args, &out)
		if err == nil {
			t.Errorf("parseOptions(%q) succeeded, want an error", tt.args)
			continue
		}
		for _, want := range tt.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("parseOptions(%q) error %q lacks %q", tt.args, err, want)
			}
		}
	}
	// Leader election settings are not checked when it is off.
	if _, err := parseOptions([]string{"--leader-elect=false", "--leader-elect-renew-deadline=1h"}, io.Discard); err != nil {
		t.Errorf("leader election off: %v", err)
	}
}

func TestRunHelpAndErrorsBeforeConnecting(t *testing.T) {
	var out bytes.Buffer
	err := run(context.Background(), []string{"-h"}, &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Errorf("run(-h) = %v, want flag.ErrHelp", err)
	}
	// kube-controller-manager's spellings and sections.
	for _, name := range []string{"--kubeconfig", "--concurrent-deployment-syncs", "--leader-elect-lease-duration", "-v, --v",
		"Generic flags:", "Leader election flags:", "Manager flags:", "Logging flags:", "Deployment controller flags:"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("usage lacks %s:\n%s", name, out.String())
		}
	}
	if strings.Contains(out.String(), "--logtostderr") {
		t.Errorf("usage shows klog's legacy flags, which kube-controller-manager hides:\n%s", out.String())
	}

	err = run(context.Background(), []string{"--kubeconfig=/nonexistent/kubeconfig"}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/kubeconfig") {
		t.Errorf("run with a missing kubeconfig = %v, want an error naming it", err)
	}
}

// Sharded, a reconcile must return before another replica may take its
// key over: within LeaseDuration − RenewDeadline of the fence. The ring
// takes the leader election's timings, and deployment.NewController its
// ReconcileTimeout.
func TestShardedReconcilesHaveATimeoutBelowTheHandoverMargin(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--shard-ring=r"}, 4 * time.Second},
		{[]string{"--shard-ring=r", "--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=2s", "--leader-elect-retry-period=500ms"}, 1600 * time.Millisecond},
		{[]string{"--shard-ring=r", "--leader-elect=false", "--leader-elect-lease-duration=60s", "--leader-elect-renew-deadline=30s"}, 24 * time.Second},
	}
	for _, tt := range tests {
		o, err := parseOptions(tt.args, io.Discard)
		if err != nil {
			t.Fatalf("parseOptions(%q): %v", tt.args, err)
		}
		mgr, err := manager.New(o.ManagerOptions(fake.NewClientset()))
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		got := mgr.Ring().ReconcileTimeout()
		le := o.Manager.Lease
		if got != tt.want || got <= 0 || got >= le.LeaseDuration-le.RenewDeadline {
			t.Errorf("%q: ReconcileTimeout %s, want %s, in (0, LeaseDuration − RenewDeadline = %s)", tt.args, got, tt.want, le.LeaseDuration-le.RenewDeadline)
		}
	}
	o, err := parseOptions(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.Manager.Sharding.Ring != "" || o.controllerOptions().ReconcileTimeout != 0 {
		t.Error("not sharded: want no ring and no deadline, as kube-controller-manager")
	}
}
