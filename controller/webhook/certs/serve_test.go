package certs

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
)

// TestServerServesFromTheSecret is the path a replica takes: the webhook
// server's TLSConfig reads the certificate from the Secret, and a client
// that trusts ca.crt (the API server, given the caBundle) is served.
func TestServerServesFromTheSecret(t *testing.T) {
	r, client, clock := newRotator(t)
	// A real client checks validity against the wall clock.
	clock.SetTime(time.Now())
	sync(t, r)
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	indexer.Add(secret(t, client))
	lister := corev1listers.NewSecretLister(indexer)

	srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1,
		TLSConfig: &tls.Config{GetCertificate: GetCertificate(lister, ns, name)}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Register("/hook", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") }))
	webhooktest.Start(t, srv)

	bundle, err := CABundle(lister, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	pool, err := cert.NewPoolFromBytes(bundle)
	if err != nil {
		t.Fatal(err)
	}
	// The API server calls the Service's DNS name; here it resolves to the
	// test's server.
	c := webhooktest.Client(t, pool)
	c.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Addr())
	}
	resp, err := c.Get("https://" + dnsName + "/hook")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HTTP %d", resp.StatusCode)
	}
}
