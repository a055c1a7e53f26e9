//go:build e2e

package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/ctrlkit/ctrlkit/controller/typed"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
)

// webAppLoad runs a write step again and again from several clients at
// once (so that the API server holds several connections to the
// webhooks), counting the requests and the steps that failed.
type webAppLoad struct {
	cancel             context.CancelFunc
	wg                 sync.WaitGroup
	requests, failures atomic.Int64
}

// loadStep writes the WebApp name in namespace shop and returns how many
// requests it made; err is the first failure, which ends the step.
type loadStep func(ctx context.Context, name string) (requests int64, err error)

// startWebAppLoad creates WebApps at v1 and updates each.
func startWebAppLoad(t *testing.T, cfg *rest.Config, clients int) *webAppLoad {
	webApps, err := typed.NewClient[*v1.WebApp](loadConfig(cfg), v1.Resource)
	if err != nil {
		t.Fatal(err)
	}
	client := webApps.Namespace("shop")
	return startLoad(t, clients, func(ctx context.Context, name string) (int64, error) {
		_, err := client.Create(ctx, &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: v1.WebAppSpec{Image: v1.Image{Repository: "nginx", Tag: "1.27"}}}, metav1.CreateOptions{})
		if err != nil {
			return 1, err
		}
		return 2, retry.RetryOnConflict(retry.DefaultRetry, func() error {
			app, err := client.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			app.Spec.Image.Tag = "1.28"
			_, err = client.Update(ctx, app, metav1.UpdateOptions{})
			return err
		})
	})
}

// loadConfig is cfg with a rate limit that keeps the webhooks busy, not
// the 2 cores.
func loadConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 30, 30
	return cfg
}

// startLoad runs step on the names load-CLIENT-N from clients goroutines
// until stop, and reports each failure.
func startLoad(t *testing.T, clients int, step loadStep) *webAppLoad {
	ctx, cancel := context.WithCancel(t.Context())
	l := &webAppLoad{cancel: cancel}
	t.Cleanup(func() { l.stop() })
	for w := range clients {
		l.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				name := fmt.Sprintf("load-%d-%d", w, i)
				n, err := step(ctx, name)
				l.requests.Add(n)
				if err != nil && ctx.Err() == nil {
					l.failures.Add(1)
					t.Errorf("%s: %v", name, err)
				}
			}
		})
	}
	return l
}

// stop ends the load and returns how many requests were made and how
// many failed.
func (l *webAppLoad) stop() (requests, failures int64) {
	l.cancel()
	l.wg.Wait()
	return l.requests.Load(), l.failures.Load()
}
