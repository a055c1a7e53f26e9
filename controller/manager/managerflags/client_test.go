package managerflags

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	cliflag "k8s.io/component-base/cli/flag"
)

const kubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:6443
contexts:
- name: c
  context:
    cluster: c
    user: u
current-context: c
users:
- name: u
  user:
    token: t
`

// writeKubeconfig writes content to a kubeconfig file of the test's and
// returns its path.
func writeKubeconfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRESTConfig(t *testing.T) {
	o := Defaults("lease")
	o.Kubeconfig = writeKubeconfig(t, kubeconfig)
	cfg, err := o.RESTConfig("tester")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "https://127.0.0.1:6443" || cfg.QPS != 20 || cfg.Burst != 30 || !strings.HasSuffix(cfg.UserAgent, "/tester") {
		t.Errorf("config host %q qps %v burst %d agent %q; want the kubeconfig's server, 20, 30, tester", cfg.Host, cfg.QPS, cfg.Burst, cfg.UserAgent)
	}
	if cfg.ContentType != "application/vnd.kubernetes.protobuf" {
		t.Errorf("content type %q, want protobuf, as kube-controller-manager", cfg.ContentType)
	}

	o.Master = "https://10.0.0.9:443"
	if cfg, err = o.RESTConfig("tester"); err != nil || cfg.Host != "https://10.0.0.9:443" {
		t.Errorf("--master: host %q, %v; want it to override the kubeconfig", cfg.Host, err)
	}

	o.Kubeconfig = filepath.Join(t.TempDir(), "missing")
	if _, err := o.RESTConfig("tester"); err == nil || !strings.Contains(err.Error(), o.Kubeconfig) {
		t.Errorf("missing kubeconfig: %v, want an error naming it", err)
	}
}

// The client asks for uncompressed responses, as kube-controller-manager's
// does: Go's transport would otherwise ask for gzip on its own.
func TestRESTConfigAsksForNoCompression(t *testing.T) {
	encodings := make(chan string, 1)
	// TLS: client-go uses http.DefaultTransport, which always asks for
	// gzip, for a plain-HTTP server with no other transport options.
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		encodings <- r.Header.Get("Accept-Encoding")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37"}`))
	}))
	defer srv.Close()
	insecure := strings.Replace(kubeconfig, "server: https://127.0.0.1:6443", "server: "+srv.URL+"\n    insecure-skip-tls-verify: true", 1)
	o := Defaults("lease")
	o.Kubeconfig = writeKubeconfig(t, insecure)
	client, err := o.Client("tester")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Discovery().ServerVersion(); err != nil {
		t.Fatal(err)
	}
	if got := <-encodings; strings.Contains(got, "gzip") {
		t.Errorf("Accept-Encoding %q; want no gzip", got)
	}
}

func TestManagerOptions(t *testing.T) {
	client := fake.NewClientset()
	o := Defaults("lease")
	mo := o.ManagerOptions(client)
	le, l := mo.LeaderElection, mo.Lease
	if !le.Enabled || mo.Client != client || l.Namespace != "kube-system" || le.Name != "lease" || !le.ReleaseOnCancel ||
		l.LeaseDuration != o.Manager.Lease.LeaseDuration || l.RenewDeadline != o.Manager.Lease.RenewDeadline || l.RetryPeriod != o.Manager.Lease.RetryPeriod {
		t.Errorf("leader election %+v on Lease %+v does not follow the flags", le, l)
	}
	if mo.MetricsAddr != ":8080" || mo.HealthProbeAddr != ":8081" {
		t.Errorf("addresses %q, %q; want :8080 and :8081", mo.MetricsAddr, mo.HealthProbeAddr)
	}
	o.Manager.LeaderElection.Enabled, o.Manager.MetricsAddr, o.Manager.HealthProbeAddr = false, "0", ""
	mo = o.ManagerOptions(client)
	// "0" and "" both turn an endpoint off (manager.Options).
	off := func(addr string) bool { return addr == "" || addr == "0" }
	if mo.LeaderElection.Enabled || !off(mo.MetricsAddr) || !off(mo.HealthProbeAddr) {
		t.Errorf("with everything off: %+v", mo)
	}
	if mo.MetricsAuth {
		t.Error("MetricsAuth without --metrics-secure; want plain HTTP as before")
	}
	// --metrics-secure is kubebuilder's: HTTPS with token reviews.
	o.Manager.MetricsTLS.SecureServing = true
	if mo = o.ManagerOptions(client); !mo.MetricsAuth {
		t.Error("--metrics-secure without MetricsAuth; want the tokens reviewed, as kubebuilder does")
	}
}

func TestAddFlagsRegistersKlog(t *testing.T) {
	o := Defaults("lease")
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	for section, names := range map[string][]string{
		"generic":         {"kubeconfig", "master", "kube-api-qps"},
		"leader election": {"leader-elect", "leader-elect-resource-name"},
		"manager":         {"metrics-bind-address", "pprof-bind-address", "graceful-shutdown-timeout"},
		"logging":         {"v", "vmodule", "logtostderr"},
	} {
		for _, name := range names {
			if fss.FlagSet(section).Lookup(name) == nil {
				t.Errorf("flag --%s not in section %q", name, section)
			}
		}
	}
	if f := fss.FlagSet("logging").Lookup("logtostderr"); f == nil || !f.Hidden {
		t.Errorf("--logtostderr %+v: want it accepted but hidden, as kube-controller-manager hides klog's legacy flags", f)
	}
}

func TestClient(t *testing.T) {
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(kubeconfig), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Defaults("lease")
	o.Kubeconfig = path
	client, err := o.Client("tester")
	if err != nil || client == nil {
		t.Fatalf("Client() = %v, %v; want a clientset", client, err)
	}
	o.Kubeconfig = filepath.Join(t.TempDir(), "missing")
	if _, err := o.Client("tester"); err == nil || !strings.Contains(err.Error(), o.Kubeconfig) {
		t.Errorf("missing kubeconfig: %v, want an error naming it", err)
	}
}
