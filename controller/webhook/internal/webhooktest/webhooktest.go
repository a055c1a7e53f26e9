// Package webhooktest runs a webhook.Server over TLS for ctrlkit's own
// tests: a certificate on disk, a client that trusts it, a server that
// stops when the test ends.
package webhooktest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// WriteCert writes a new self-signed serving certificate for 127.0.0.1 as
// tls.crt and tls.key in dir, and returns a pool that trusts it and no
// other. The files are replaced by renames, as the kubelet swaps a
// mounted Secret, so that a reader never sees half a file.
func WriteCert(t testing.TB, dir string) *x509.CertPool {
	t.Helper()
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		tmp := filepath.Join(dir, "."+name+".tmp")
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(certPEM) {
		t.Fatal("no certificate in the generated PEM")
	}
	return pool
}

// Client returns an HTTPS client that trusts roots. It keeps no
// connection alive, so every request makes a new handshake.
func Client(t testing.TB, roots *x509.CertPool) *http.Client {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// Start runs s until the test ends, fails the test if Start fails, and
// returns the server's base URL once it listens.
func Start(t testing.TB, s *webhook.Server) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	testutil.Eventually(t, 10*time.Second, "the webhook server to listen", func(context.Context) (bool, error) {
		select {
		case err := <-errc:
			errc <- err
			t.Fatalf("webhook server stopped: %v", err)
		default:
		}
		return s.Addr() != "", nil
	})
	return "https://" + s.Addr()
}

// Serve starts a server on 127.0.0.1 with a new certificate and h at each
// path, and returns its base URL and a client that trusts it.
func Serve(t testing.TB, handlers map[string]http.Handler) (string, *http.Client) {
	t.Helper()
	dir := t.TempDir()
	roots := WriteCert(t, dir)
	s, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for path, h := range handlers {
		s.Register(path, h)
	}
	return Start(t, s), Client(t, roots)
}
