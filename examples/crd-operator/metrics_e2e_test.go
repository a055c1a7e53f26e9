//go:build e2e

package main

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppMetricsE2E runs the operator as manifests/deployment.yaml
// does: /metrics over HTTPS with the webhooks' self-managed certificate
// (--metrics-cert-from-webhook-secret) and reviewed tokens
// (--metrics-secure). A scraper that trusts the Secret's ca.crt and calls
// the metrics Service's name verifies the certificate; without a token it
// gets 401, with the token of a service account bound to
// manifests/metrics.yaml's metrics-reader the metrics.
func TestWebAppMetricsE2E(t *testing.T) {
	env, kube := startOperatorEnv(t, []string{"manifests/metrics.yaml"})
	// Not the probes' 127.0.0.1:0: one address would be one server, and
	// the probes must stay plain HTTP.
	mgr := startWebhookOperator(t, env.RESTConfig(), "--metrics-bind-address=localhost:0", "--metrics-secure", "--metrics-cert-from-webhook-secret")
	token := metricsReaderToken(t, kube)

	var bundle []byte
	testutil.Eventually(t, time.Minute, "the elected replica to create the Secret", func(ctx context.Context) (bool, error) {
		s, err := kube.CoreV1().Secrets("ctrlkit-system").Get(ctx, "webapp-operator-webhook-certs", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		bundle = s.Data["ca.crt"]
		return len(bundle) > 0, nil
	})
	pool, err := cert.NewPoolFromBytes(bundle)
	if err != nil {
		t.Fatal(err)
	}
	// The metrics Service's name, as a ServiceMonitor's serverName gives it.
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "webapp-operator-metrics.ctrlkit-system.svc"}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	get := func(ctx context.Context, token string) (int, string, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+mgr.MetricsAddr()+"/metrics", nil)
		if err != nil {
			return 0, "", err
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body), err
	}
	// Handshakes fail until the Secret reaches the replica's informer.
	testutil.Eventually(t, 30*time.Second, "401 without a token, over verified HTTPS", func(ctx context.Context) (bool, error) {
		code, body, err := get(ctx, "")
		return code == http.StatusUnauthorized, fmt.Errorf("%d %q: %v", code, body, err)
	})
	// RBAC reaches the authorizer through informers; a denial is kept 10s.
	testutil.Eventually(t, 30*time.Second, "the metrics for the metrics-reader's token", func(ctx context.Context) (bool, error) {
		code, body, err := get(ctx, token)
		return code == http.StatusOK && strings.Contains(body, "leader_election_master_status"), fmt.Errorf("%d %q: %v", code, body, err)
	})
}

// metricsReaderToken is a token, from the API server's TokenRequest, of a
// service account bound to manifests/metrics.yaml's metrics-reader, as
// Prometheus's would be.
func metricsReaderToken(t *testing.T, kube kubernetes.Interface) string {
	t.Helper()
	ctx := t.Context()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus", Namespace: "ctrlkit-system"}}
	if _, err := kube.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "prometheus:metrics-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "ctrlkit:webapp-operator:metrics-reader"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: sa.Namespace, Name: sa.Name}},
	}
	if _, err := kube.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := kube.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}
