package webhook

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Options configure a Server. The zero value serves on port 9443 with the
// certificate files in $TMPDIR/k8s-webhook-server/serving-certs, as
// controller-runtime's server does.
type Options struct {
	// Host is the address to listen on; empty means every interface.
	Host string
	// Port is the port to listen on; 0 means 9443. Use a negative port
	// for one the system picks (tests); Addr tells which.
	Port int

	// CertDir holds the serving certificate and key, named CertName
	// (default tls.crt) and KeyName (default tls.key): the layout of a
	// mounted kubernetes.io/tls Secret. The files are read at Start and
	// again whenever they change.
	CertDir, CertName, KeyName string

	// TLSConfig, if set, is the TLS configuration served, cloned at
	// Start. If it names no certificate (no Certificates, GetCertificate
	// or GetConfigForClient), the files above give GetCertificate, so it
	// can also just set MinVersion or cipher suites. When nil, the files
	// are served with TLS 1.2 or newer.
	TLSConfig *tls.Config

	// Registerer receives the webhook metrics (controller-runtime's
	// names). Nil means a private registry nobody gathers.
	Registerer prometheus.Registerer

	// DrainTimeout bounds how long Start waits, once its context ends,
	// for requests in flight to finish. Default 10s, the API server's
	// default timeout of a webhook call: it has given up on an older one.
	DrainTimeout time.Duration
}

// defaultCertDir is controller-runtime's.
var defaultCertDir = filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")

const (
	defaultPort         = 9443
	defaultDrainTimeout = 10 * time.Second
)

// complete fills in the defaults.
func (o Options) complete() Options {
	if o.Port == 0 {
		o.Port = defaultPort
	}
	if o.Port < 0 {
		o.Port = 0
	}
	if o.CertDir == "" {
		o.CertDir = defaultCertDir
	}
	if o.CertName == "" {
		o.CertName = "tls.crt"
	}
	if o.KeyName == "" {
		o.KeyName = "tls.key"
	}
	if o.Registerer == nil {
		o.Registerer = prometheus.NewRegistry()
	}
	if o.DrainTimeout <= 0 {
		o.DrainTimeout = defaultDrainTimeout
	}
	return o
}
