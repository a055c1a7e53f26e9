package manager

import (
	"crypto/tls"
	"errors"
	"fmt"
	"path/filepath"

	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/internal/certwatcher"
)

// MetricsTLS configures HTTPS on the metrics endpoint, with the names of
// controller-runtime's metricsserver.Options.
//
// Use plain HTTP only where no one else can read the traffic (a local
// run, a port-forward): with MetricsAuth the bearer token crosses it in
// clear text. In a cluster, serve HTTPS with MetricsAuth, kubebuilder's
// default since it dropped kube-rbac-proxy.
type MetricsTLS struct {
	// SecureServing serves MetricsAddr over HTTPS (TLS 1.2 or later,
	// HTTP/1.1), and with it /debug/pprof/ if PprofAddr is the same
	// address. A plain HTTP request is refused (400, and the connection
	// closed). HealthProbeAddr must then be another address: the kubelet
	// probes over plain HTTP.
	SecureServing bool

	// CertDir holds the serving certificate and key, named CertName
	// (default tls.crt) and KeyName (default tls.key): the layout of a
	// mounted kubernetes.io/tls Secret, e.g. one cert-manager issues. The
	// files are read when Run starts, which fails without them, and again
	// at the first TLS handshake after either changes: a renewed
	// certificate is served without a restart. Empty means a self-signed
	// certificate made at Run, as controller-runtime does; scrapers
	// cannot verify it, but tokens stay hidden from passive readers.
	CertDir, CertName, KeyName string

	// TLSConfig, if set, is the TLS configuration served, cloned at Run.
	// If it names no certificate (no Certificates, GetCertificate or
	// GetConfigForClient), CertDir's files (or the self-signed
	// certificate) give GetCertificate, so it can also just set
	// MinVersion or cipher suites. The TLSConfig of certs.SelfManaged
	// (package controller/webhook/certs) serves the webhook's
	// self-managed Secret here too: add the metrics Service's DNS name to
	// its DNSNames.
	TLSConfig *tls.Config
}

// withDefaults names the files of a mounted kubernetes.io/tls Secret.
func (t MetricsTLS) withDefaults() MetricsTLS {
	if t.CertName == "" {
		t.CertName = "tls.crt"
	}
	if t.KeyName == "" {
		t.KeyName = "tls.key"
	}
	return t
}

// check refuses serving the probes over HTTPS by accident: with one
// address for both, the kubelet's HTTP probes would get 400 and restart
// the pod.
func (t MetricsTLS) check(metricsAddr, healthProbeAddr string) error {
	if t.SecureServing && metricsAddr != "" && metricsAddr == healthProbeAddr {
		return errors.New("MetricsTLS.SecureServing serves MetricsAddr over HTTPS, " +
			"so HealthProbeAddr must be another address for the kubelet's plain HTTP probes")
	}
	return nil
}

// config builds the served TLS configuration.
func (t MetricsTLS) config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if t.TLSConfig != nil {
		cfg = t.TLSConfig.Clone()
	}
	if len(cfg.NextProtos) == 0 {
		// HTTP/2 is not needed to scrape, and has had denial-of-service
		// flaws (CVE-2023-44487); kubebuilder turns it off too.
		cfg.NextProtos = []string{"http/1.1"}
	}
	if len(cfg.Certificates) > 0 || cfg.GetCertificate != nil || cfg.GetConfigForClient != nil {
		return cfg, nil
	}
	if t.CertDir == "" {
		certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", nil, nil)
		if err != nil {
			return nil, fmt.Errorf("self-signed metrics certificate: %w", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("self-signed metrics certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
		return cfg, nil
	}
	w, err := certwatcher.New(filepath.Join(t.CertDir, t.CertName), filepath.Join(t.CertDir, t.KeyName))
	if err != nil {
		return nil, fmt.Errorf("metrics certificate: %w", err)
	}
	cfg.GetCertificate = w.GetCertificate
	return cfg, nil
}
