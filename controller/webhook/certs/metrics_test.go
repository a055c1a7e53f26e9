package certs

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// The metrics endpoint serves from the webhook's Secret too: a scraper
// that trusts its ca.crt and calls the metrics Service's name, which
// DNSNames lists beside the webhook's, verifies the certificate.
func TestMetricsServeFromTheSecret(t *testing.T) {
	const metricsName = "operator-metrics.operator.svc"
	client := fake.NewClientset()
	configs(client, t)
	sm, err := NewSelfManaged(SelfManagedOptions{
		Options:  Options{Client: client, Namespace: ns, Name: name, DNSNames: []string{"127.0.0.1", metricsName}},
		Webhooks: Webhooks{ValidatingWebhookConfigurations: []string{"validating"}, MutatingWebhookConfigurations: []string{"mutating"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, TLSConfig: sm.TLSConfig()})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Options{WebhookServer: srv, MetricsAddr: "127.0.0.1:0",
		MetricsTLS: manager.MetricsTLS{SecureServing: true, TLSConfig: sm.TLSConfig()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := sm.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	var c *http.Client
	testutil.Eventually(t, 10*time.Second, "the Secret's CA", func(ctx context.Context) (bool, error) {
		s, err := client.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		pool, err := cert.NewPoolFromBytes(s.Data[keyCABundle])
		if err != nil {
			return false, err
		}
		c = webhooktest.Client(t, pool)
		return true, nil
	})
	c.Transport.(*http.Transport).DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, mgr.MetricsAddr())
	}
	// Until the informer holds the Secret, handshakes fail.
	testutil.Eventually(t, 10*time.Second, "/metrics over HTTPS from the Secret", func(context.Context) (bool, error) {
		resp, err := c.Get("https://" + metricsName + "/metrics")
		if err != nil {
			return false, err
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}
