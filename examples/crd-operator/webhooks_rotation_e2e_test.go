//go:build e2e

package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/retry"

	"github.com/ctrlkit/ctrlkit/controller/typed"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppWebhooksRotationE2E rotates the self-managed certificates
// (30s validity: a new CA every 20s) at least twice while two clients
// create and update WebApps through the webhooks, and checks that the
// clients see no error: the caBundle holds the old and the new CA until
// the new serving certificate is served.
func TestWebAppWebhooksRotationE2E(t *testing.T) {
	env, kube := startOperatorEnv(t, nil, "shop")
	ctx := t.Context()
	mgr := startWebhookOperator(t, env.RESTConfig(), "--webhook-cert-validity=30s")
	installOperatorWebhooks(t, env, mgr.GetWebhookServer().Addr())
	testutil.Eventually(t, time.Minute, "/readyz/webhook-certificates to pass", testutil.True(func() bool { return readyz(t, mgr) == "" }))

	webApps, err := typed.NewClient[*v1.WebApp](env.RESTConfig(), v1.Resource)
	if err != nil {
		t.Fatal(err)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	var requests, failures atomic.Int64
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := 0; loadCtx.Err() == nil; i++ {
				name := fmt.Sprintf("load-%d-%d", w, i)
				client := webApps.Namespace("shop")
				_, err := client.Create(loadCtx, &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: v1.WebAppSpec{Image: v1.Image{Repository: "nginx", Tag: "1.27"}}}, metav1.CreateOptions{})
				if err == nil {
					requests.Add(1)
					err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
						app, err := client.Get(loadCtx, name, metav1.GetOptions{})
						if err != nil {
							return err
						}
						app.Spec.Image.Tag = "1.28"
						_, err = client.Update(loadCtx, app, metav1.UpdateOptions{})
						return err
					})
				}
				requests.Add(1)
				if err != nil && loadCtx.Err() == nil {
					failures.Add(1)
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}

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
	stopLoad()
	wg.Wait()
	t.Logf("%d requests through the webhooks during two rotations, %d failed", requests.Load(), failures.Load())
	if requests.Load() < 50 {
		t.Errorf("only %d requests: the load did not run", requests.Load())
	}
}
