// Package webhooktest runs a webhook.Server over TLS for ctrlkit's own
// tests: a certificate on disk, a client that trusts it, a server that
// stops when the test ends.
package webhooktest

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/internal/certtest"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// WriteCert writes a new self-signed serving certificate for 127.0.0.1 as
// tls.crt and tls.key in dir (certtest.WriteCert), and returns a pool that
// trusts it and no other.
func WriteCert(t testing.TB, dir string) *x509.CertPool {
	t.Helper()
	return certtest.WriteCert(t, dir)
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

// Post sends body to url with contentType (none if empty) and returns the
// status and the body answered.
func Post(t testing.TB, c *http.Client, url, contentType string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out
}
