package main

import (
	"bytes"
	"io"
	"net"
	"os"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrlkit/ctrlkit/examples/internal/manifesttest"
)

func TestManifestsHangTogether(t *testing.T) {
	m := manifesttest.Load(t, "manifests/*.yaml")
	manifesttest.CheckOneController(t, m)
	manifesttest.CheckHardened(t, m, 65532, 30)
	d := m.Deployments[0]

	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]
	o, err := parseOptions(c.Args, io.Discard)
	if err != nil {
		t.Fatalf("the Deployment's args do not parse: %v", err)
	}
	if o.Kubeconfig != "" || o.Master != "" {
		t.Error("the Deployment must use the in-cluster configuration")
	}
	if o.Manager.Sharding.Ring == "" {
		t.Error("the Deployment's replicas must run sharded (--shard-ring)")
	}
	if !o.Manager.LeaderElection.Enabled || o.Manager.Lease.Namespace != m.Roles[0].Namespace {
		t.Errorf("leader election in namespace %q (enabled %v), but the Lease Role is in %q",
			o.Manager.Lease.Namespace, o.Manager.LeaderElection.Enabled, m.Roles[0].Namespace)
	}

	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	for _, probe := range []struct {
		name  string
		p     *corev1.Probe
		path  string
		addr  string
		owner string
	}{
		{"liveness", c.LivenessProbe, "/healthz", o.Manager.HealthProbeAddr, "--health-probe-bind-address"},
		{"readiness", c.ReadinessProbe, "/readyz", o.Manager.HealthProbeAddr, "--health-probe-bind-address"},
	} {
		if probe.p == nil || probe.p.HTTPGet == nil {
			t.Errorf("no HTTP %s probe", probe.name)
			continue
		}
		if probe.p.HTTPGet.Path != probe.path {
			t.Errorf("%s probe path %q, want %q", probe.name, probe.p.HTTPGet.Path, probe.path)
		}
		_, port, err := net.SplitHostPort(probe.addr)
		if err != nil {
			t.Errorf("%s %q: %v", probe.owner, probe.addr, err)
			continue
		}
		if got := ports[probe.p.HTTPGet.Port.String()]; port != itoa(got) {
			t.Errorf("%s probe port %s = %d, but %s listens on %s", probe.name, probe.p.HTTPGet.Port.String(), got, probe.owner, port)
		}
	}
	if _, port, _ := net.SplitHostPort(o.Manager.MetricsAddr); port != itoa(ports["metrics"]) {
		t.Errorf("metrics port %d, but --metrics-bind-address is %q", ports["metrics"], o.Manager.MetricsAddr)
	}

}

func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"FROM golang:",
		"CGO_ENABLED=0 go build",
		"./examples/deployment-controller",
		"FROM gcr.io/distroless/static:nonroot",
		"USER 65532:65532",
		`ENTRYPOINT ["/deployment-controller"]`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

func itoa(n int32) string { return strconv.Itoa(int(n)) }
