package manager

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
)

// newWebhookServer is a webhook server on a free port of 127.0.0.1 with a
// self-signed certificate, and a client that trusts it.
func newWebhookServer(t *testing.T) (*webhook.Server, *http.Client) {
	t.Helper()
	certPEM, keyPEM, err := cert.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	s, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Register("/hook", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(certPEM)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	return s, &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// call reports whether the webhook server answers a request.
func call(c *http.Client, s *webhook.Server) error {
	resp, err := c.Get("https://" + s.Addr() + "/hook")
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// The webhook server answers before any informer starts (a conversion
// webhook may be called by the informers' first list) and until the
// informers have stopped, then stops.
func TestWebhookServerBracketsInformers(t *testing.T) {
	for _, how := range []string{"Options.WebhookServer", "Add", "both"} {
		t.Run(how, func(t *testing.T) {
			srv, client := newWebhookServer(t)
			opts := Options{Logger: quiet()}
			if how != "Add" {
				opts.WebhookServer = srv
			}
			m, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			factory := newFakeFactory(rec)
			close(factory.sync)
			if err := m.AddInformerFactory(factory); err != nil {
				t.Fatal(err)
			}
			other := newFake("other", false, rec)
			mustAdd(t, m, other)
			if how != "Options.WebhookServer" {
				mustAdd(t, m, srv) // given twice with "both": runs once
			}
			if got := m.GetWebhookServer(); got != srv {
				t.Fatalf("GetWebhookServer = %p, want the server given (%p)", got, srv)
			}
			// Run calls the factory's Start itself; the check runs there.
			var atStart, atShutdown error
			checkedFactory := &startHook{fakeFactory: factory, onStart: func() { atStart = call(client, srv) }}
			factory.onShutdown = func() { atShutdown = call(client, srv) }
			m.factories[0].f = checkedFactory

			ctx, cancel := context.WithCancel(t.Context())
			done := runInBackground(ctx, m)
			<-other.started
			cancel()
			if err := <-done; err != nil {
				t.Fatalf("Run: %v", err)
			}
			if atStart != nil {
				t.Errorf("webhook server not answering when the informers started: %v", atStart)
			}
			if atShutdown != nil {
				t.Errorf("webhook server not answering while the informers stopped: %v", atShutdown)
			}
			if err := call(client, srv); err == nil {
				t.Error("webhook server still answers after Run returned")
			}
		})
	}
}

// startHook runs onStart before the factory starts.
type startHook struct {
	*fakeFactory
	onStart func()
}

func (h *startHook) Start(stop <-chan struct{}) {
	h.onStart()
	h.fakeFactory.Start(stop)
}

// A webhook server that cannot start fails Run before any informer or
// runnable starts.
func TestWebhookServerFailureStopsRunBeforeInformers(t *testing.T) {
	srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: t.TempDir()}) // no certificate there
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(Options{Logger: quiet(), WebhookServer: srv, HealthProbeAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	if err := m.AddInformerFactory(newFakeFactory(rec)); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, m, newFake("other", false, rec))
	err = m.Run(t.Context())
	if err == nil || !strings.Contains(err.Error(), "webhook server") {
		t.Fatalf("Run = %v, want the webhook server's error", err)
	}
	if got := rec.get(); len(got) != 0 {
		t.Errorf("started %v, want nothing", got)
	}
}

// GetWebhookServer creates one default server, once, as controller-runtime's.
func TestGetWebhookServerDefault(t *testing.T) {
	m, err := New(Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	s := m.GetWebhookServer()
	if s == nil || m.GetWebhookServer() != s {
		t.Fatalf("GetWebhookServer = %p then %p, want one server", s, m.GetWebhookServer())
	}
}
