//go:build e2e

package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/cert"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppWebhooksRotationE2E rotates the self-managed certificates
// (30s validity: a new CA every 20s) at least twice while two clients
// create and update WebApps through the webhooks, and checks that the
// clients see no error: the caBundle holds the old and the new CA until
// the new serving certificate is served.
func TestWebAppWebhooksRotationE2E(t *testing.T) {
	env, kube := startOperatorEnv(t, nil, "shop")
	mgr := startWebhookOperator(t, env.RESTConfig(), "--webhook-cert-validity=30s")
	installOperatorWebhooks(t, env, mgr.GetWebhookServer().Addr())
	testutil.Eventually(t, time.Minute, "/readyz/webhook-certificates to pass", testutil.True(func() bool { return readyz(t, mgr) == "" }))

	load := startWebAppLoad(t, env.RESTConfig(), 2)

	// Two rotations: three CAs seen as the newest, and the bundle back to
	// one CA after the third came.
	seen := map[[32]byte]bool{}
	testutil.Eventually(t, 3*time.Minute, "two rotations of the CA", func(ctx context.Context) (bool, error) {
		s, err := kube.CoreV1().Secrets("ctrlkit-system").Get(ctx, "webapp-operator-webhook-certs", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cas, err := cert.ParseCertsPEM(s.Data["ca.crt"])
		if err != nil {
			return false, err
		}
		seen[sha256.Sum256(cas[0].Raw)] = true
		return len(seen) >= 3 && len(cas) == 1, fmt.Errorf("%d CAs seen, %d in the bundle", len(seen), len(cas))
	})
	requests, failures := load.stop()
	t.Logf("%d requests through the webhooks during two rotations, %d failed", requests, failures)
	if requests < 50 {
		t.Errorf("only %d requests: the load did not run", requests)
	}
}
