//go:build e2e

package e2e

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestMetricsOverHTTPS scrapes a manager's /metrics the way Prometheus
// does in a cluster, with curl and ServiceAccount tokens from the API
// server's TokenRequest: HTTPS (MetricsTLS, from certificate files) with
// the API server's TokenReview and SubjectAccessReview (MetricsAuth).
// Without a token it gets 401, with a token that RBAC does not let get
// /metrics 403, with one it does the metrics; plain HTTP is refused, and
// a certificate replaced on disk is served without a restart.
func TestMetricsOverHTTPS(t *testing.T) {
	env := envtest.StartForTest(t, envtest.Options{})
	client := env.Client()
	ns := env.Namespace(t)
	certDir := t.TempDir()
	firstCA := writeServingPair(t, certDir, "first")

	registry := prometheus.NewRegistry()
	registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "ctrlkit_e2e_scraped", Help: "Set for this test."}, func() float64 { return 1 }))
	mgr, err := manager.New(manager.Options{
		Client:      client, // reviews the scrapers' tokens
		Registry:    registry,
		MetricsAddr: "127.0.0.1:0",
		MetricsAuth: true,
		MetricsTLS:  manager.MetricsTLS{SecureServing: true, CertDir: certDir},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	testutil.Eventually(t, 30*time.Second, "the metrics server to listen", testutil.True(func() bool { return mgr.MetricsAddr() != "" }))
	url := "https://" + mgr.MetricsAddr() + "/metrics"

	reader := serviceAccountToken(t, client, ns, "prometheus")
	stranger := serviceAccountToken(t, client, ns, "stranger")
	allowMetrics(t, client, ns, "prometheus")

	t.Run("no token", func(t *testing.T) {
		if got := curlMetrics(t, url, firstCA, ""); got.code != 401 {
			t.Errorf("GET /metrics without a token: %s; want 401", got)
		}
	})
	t.Run("token without get on /metrics", func(t *testing.T) {
		if got := curlMetrics(t, url, firstCA, stranger); got.code != 403 {
			t.Errorf("GET /metrics as a service account without RBAC: %s; want 403", got)
		}
	})
	t.Run("authorised token", func(t *testing.T) {
		// RBAC reaches the API server's authorizer through its informers:
		// poll, past the 10s for which the manager keeps a denial.
		testutil.Eventually(t, 30*time.Second, "the metrics for an authorised token", func(context.Context) (bool, error) {
			got := curlMetrics(t, url, firstCA, reader)
			return got.code == 200 && strings.Contains(got.body, "ctrlkit_e2e_scraped 1"), errors.New(got.String())
		})
	})
	t.Run("plain HTTP", func(t *testing.T) {
		// Go's TLS server answers 400 and closes the connection; the
		// client may see the reset of its unread request first.
		got := curlMetrics(t, "http://"+mgr.MetricsAddr()+"/metrics", "", reader)
		if refused := got.err != nil || got.code == 400; !refused || strings.Contains(got.body, "ctrlkit_e2e_scraped") {
			t.Errorf("GET /metrics over plain HTTP with an authorised token: %s; want 400 or a reset connection, and no metrics", got)
		}
	})
	t.Run("certificate replaced on disk", func(t *testing.T) {
		secondCA := writeServingPair(t, certDir, "second")
		start := time.Now()
		testutil.Eventually(t, 10*time.Second, "the new certificate to be served", func(context.Context) (bool, error) {
			got := curlMetrics(t, url, secondCA, reader)
			return got.code == 200 && strings.Contains(got.body, "ctrlkit_e2e_scraped 1"), errors.New(got.String())
		})
		t.Logf("the new certificate was served %v after the files were replaced", time.Since(start).Round(time.Millisecond))
		if got := curlMetrics(t, url, firstCA, reader); got.err == nil {
			t.Errorf("GET /metrics trusting only the replaced certificate's CA: %s; want a failed verification", got)
		}
		select {
		case err := <-done:
			done <- err // for the cleanup
			t.Errorf("the manager stopped: %v", err)
		default:
		}
	})
}

// writeServingPair writes a new self-signed pair for 127.0.0.1 into dir
// as tls.crt and tls.key, each replaced by a rename, as a mounted Secret's
// files are, and returns the path of a file with its certificates, which
// a client trusts to verify it.
func writeServingPair(t *testing.T, dir, name string) (caFile string) {
	t.Helper()
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(t.TempDir(), name+"-ca.crt")
	if err := os.WriteFile(caFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for file, data := range map[string][]byte{"tls.key": keyPEM, "tls.crt": certPEM} {
		tmp := filepath.Join(dir, "."+file+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, file)); err != nil {
			t.Fatal(err)
		}
	}
	return caFile
}

// serviceAccountToken creates the ServiceAccount ns/name and returns a
// token for it from the API server's TokenRequest, as the kubelet mounts
// into a pod.
func serviceAccountToken(t *testing.T, client kubernetes.Interface, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := client.CoreV1().ServiceAccounts(ns).Create(t.Context(), sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	expiry := int64(3600)
	tr, err := client.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// allowMetrics lets the ServiceAccount ns/name get /metrics, with the
// ClusterRole kubebuilder names metrics-reader.
func allowMetrics(t *testing.T, client kubernetes.Interface, ns, name string) {
	t.Helper()
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: ns + "-metrics-reader"},
		Rules:      []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}},
	}
	if _, err := client.RbacV1().ClusterRoles().Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
	}
	if _, err := client.RbacV1().ClusterRoleBindings().Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}
