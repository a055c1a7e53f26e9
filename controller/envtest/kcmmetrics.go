package envtest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
)

// ControllerManagerMetrics returns kube-controller-manager's /metrics, in the
// Prometheus text format, read with the admin credentials (kcm delegates the
// check to kube-apiserver). It is how a benchmark sees the work queues of
// kcm's controllers: adds, work durations and waits.
func (env *Environment) ControllerManagerMetrics(ctx context.Context) ([]byte, error) {
	cfg := env.RESTConfig()
	// kcm serves a self-signed certificate it makes at start: on this
	// loopback port, the client's identity matters, not the server's.
	cfg.TLSClientConfig = rest.TLSClientConfig{Insecure: true}
	cfg.Timeout = 30 * time.Second
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d/metrics", env.kcmPort)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("read kube-controller-manager metrics: %w", err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("read kube-controller-manager metrics: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("read kube-controller-manager metrics: %s: %.200s", resp.Status, body)
	}
	return body, nil
}
