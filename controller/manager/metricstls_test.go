package manager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net/http"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/internal/certtest"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// httpsClient trusts roots only and makes a new handshake per request.
func httpsClient(t *testing.T, roots *x509.CertPool) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: endpointTimeout}
}

// servedSerial is the serial number of the certificate served at addr.
func servedSerial(addr string) (*big.Int, error) {
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // only reads the served certificate
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0].SerialNumber, nil
}

// With SecureServing, /metrics is HTTPS with the same token review as
// over HTTP; plain HTTP is refused; a certificate replaced on disk is
// served without a restart.
func TestMetricsOverHTTPS(t *testing.T) {
	api := newReviewingAPI()
	dir := t.TempDir()
	roots := certtest.WriteCert(t, dir)
	m := mustNew(t, Options{Logger: quiet(), Client: api, MetricsAuth: true, MetricsAddr: "127.0.0.1:0",
		HealthProbeAddr: "localhost:0", MetricsTLS: MetricsTLS{SecureServing: true, CertDir: dir}})
	stop := startServing(t, m)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	metrics := "https://" + m.MetricsAddr() + "/metrics"
	c := httpsClient(t, roots)

	if code, _ := getWithTokenBy(t, c, metrics, ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code, _ := getWithTokenBy(t, c, metrics, "other-token"); code != http.StatusForbidden {
		t.Errorf("token without RBAC: %d, want 403", code)
	}
	if code, body := getWithTokenBy(t, c, metrics, "reader-token"); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("allowed token: %d, want 200 and the metrics", code)
	}
	code, body := getWithToken(t, "http://"+m.MetricsAddr()+"/metrics", "reader-token")
	if code != http.StatusBadRequest || strings.Contains(body, "go_goroutines") {
		t.Errorf("plain HTTP: %d %q, want 400 and no metrics", code, body)
	}
	if code, _ := get(t, "http://"+m.HealthProbeAddr()+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz over plain HTTP: %d, want 200", code)
	}

	first, err := servedSerial(m.MetricsAddr())
	if err != nil {
		t.Fatal(err)
	}
	newRoots := certtest.WriteCert(t, dir)
	testutil.Eventually(t, endpointTimeout, "the replaced certificate to be served", func(context.Context) (bool, error) {
		serial, err := servedSerial(m.MetricsAddr())
		return err == nil && serial.Cmp(first) != 0, nil
	})
	if code, _ := getWithTokenBy(t, httpsClient(t, newRoots), metrics, "reader-token"); code != http.StatusOK {
		t.Errorf("after rotation, trusting the new certificate: %d, want 200", code)
	}
}

// Without CertDir, a self-signed certificate is served, as
// controller-runtime does.
func TestMetricsOverHTTPSSelfSigned(t *testing.T) {
	m := mustNew(t, Options{Logger: quiet(), MetricsAddr: "127.0.0.1:0", MetricsTLS: MetricsTLS{SecureServing: true}})
	stop := startServing(t, m)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, DisableKeepAlives: true} //nolint:gosec // self-signed
	defer tr.CloseIdleConnections()
	code, body := getWithTokenBy(t, &http.Client{Transport: tr, Timeout: endpointTimeout}, "https://"+m.MetricsAddr()+"/metrics", "")
	if code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("self-signed HTTPS: %d, want 200 and the metrics", code)
	}
}

func TestMetricsTLSInvalid(t *testing.T) {
	_, err := New(Options{MetricsAddr: ":8080", HealthProbeAddr: ":8080", MetricsTLS: MetricsTLS{SecureServing: true}})
	if err == nil || !strings.Contains(err.Error(), "HealthProbeAddr") {
		t.Errorf("New(probes on the HTTPS metrics address) = %v, want an error naming HealthProbeAddr", err)
	}

	m := mustNew(t, Options{Logger: quiet(), MetricsAddr: "127.0.0.1:0",
		MetricsTLS: MetricsTLS{SecureServing: true, CertDir: t.TempDir()}})
	ctx, cancel := context.WithTimeout(t.Context(), endpointTimeout)
	defer cancel()
	if err := m.Run(ctx); err == nil || !strings.Contains(err.Error(), "metrics certificate") {
		t.Errorf("Run without certificate files = %v, want an error naming the metrics certificate", err)
	}
	if m.MetricsAddr() != "" {
		t.Errorf("MetricsAddr() = %q after a failed start, want empty", m.MetricsAddr())
	}
}
