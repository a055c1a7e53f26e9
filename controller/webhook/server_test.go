package webhook_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })

func newServer(t *testing.T, opts webhook.Options) *webhook.Server {
	t.Helper()
	opts.Host, opts.Port = "127.0.0.1", -1
	s, err := webhook.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(c *http.Client, url string) (int, string, error) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

func TestServesFileCertificate(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	s := newServer(t, webhook.Options{CertDir: dir})
	s.Register("/hook", ok)
	url := webhooktest.Start(t, s)

	code, body, err := get(webhooktest.Client(t, roots), url+"/hook")
	if err != nil || code != http.StatusOK || body != "ok" {
		t.Fatalf("GET /hook: %d %q %v, want 200 ok", code, body, err)
	}
	if code, _, _ := get(webhooktest.Client(t, roots), url+"/other"); code != http.StatusNotFound {
		t.Errorf("GET /other: %d, want 404", code)
	}
	if _, _, err := get(webhooktest.Client(t, x509.NewCertPool()), url+"/hook"); err == nil {
		t.Error("a client that trusts no CA was served")
	}
}

func TestServesReplacedFileCertificate(t *testing.T) {
	dir := t.TempDir()
	oldRoots := webhooktest.WriteCert(t, dir)
	s := newServer(t, webhook.Options{CertDir: dir})
	s.Register("/hook", ok)
	url := webhooktest.Start(t, s)
	if _, _, err := get(webhooktest.Client(t, oldRoots), url+"/hook"); err != nil {
		t.Fatal(err)
	}

	newRoots := webhooktest.WriteCert(t, dir)
	newClient := webhooktest.Client(t, newRoots)
	testutil.Eventually(t, 10*time.Second, "the new certificate to be served", func(context.Context) (bool, error) {
		code, _, err := get(newClient, url+"/hook")
		return code == http.StatusOK, err
	})
	if _, _, err := get(webhooktest.Client(t, oldRoots), url+"/hook"); err == nil {
		t.Error("the old certificate is still served")
	}
}

func TestKeepsServingTheLastGoodCertificate(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	s := newServer(t, webhook.Options{CertDir: dir})
	s.Register("/hook", ok)
	url := webhooktest.Start(t, s)

	if err := os.WriteFile(filepath.Join(dir, "tls.key"), []byte("half written"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, err := get(webhooktest.Client(t, roots), url+"/hook"); err != nil || code != http.StatusOK {
		t.Fatalf("with a broken key file: %d %v, want the last good certificate served", code, err)
	}
}

func TestServesUserTLSConfig(t *testing.T) {
	pairDir := t.TempDir()
	roots := webhooktest.WriteCert(t, pairDir)
	pair, err := tls.LoadX509KeyPair(filepath.Join(pairDir, "tls.crt"), filepath.Join(pairDir, "tls.key"))
	if err != nil {
		t.Fatal(err)
	}
	// No certificate files: the TLSConfig's certificate is served.
	s := newServer(t, webhook.Options{
		CertDir:   filepath.Join(t.TempDir(), "missing"),
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS13},
	})
	s.Register("/hook", ok)
	url := webhooktest.Start(t, s)
	if code, _, err := get(webhooktest.Client(t, roots), url+"/hook"); err != nil || code != http.StatusOK {
		t.Fatalf("GET: %d %v", code, err)
	}
	tls12 := &http.Client{Transport: &http.Transport{DisableKeepAlives: true,
		TLSClientConfig: &tls.Config{RootCAs: roots, MaxVersion: tls.VersionTLS12}}}
	if _, _, err := get(tls12, url+"/hook"); err == nil {
		t.Error("a TLS 1.2 client was served though the TLSConfig asks for 1.3")
	}
}

func TestTLSConfigWithoutCertificateUsesFiles(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	s := newServer(t, webhook.Options{CertDir: dir, TLSConfig: &tls.Config{MinVersion: tls.VersionTLS13}})
	s.Register("/hook", ok)
	url := webhooktest.Start(t, s)
	if code, _, err := get(webhooktest.Client(t, roots), url+"/hook"); err != nil || code != http.StatusOK {
		t.Fatalf("GET: %d %v", code, err)
	}
}

func TestStartFailsWithoutCertificate(t *testing.T) {
	s := newServer(t, webhook.Options{CertDir: filepath.Join(t.TempDir(), "missing")})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if err := s.Start(ctx); err == nil || !strings.Contains(err.Error(), "tls.crt") {
		t.Fatalf("Start: %v, want an error naming the missing file", err)
	}
	if err := s.Start(ctx); err == nil {
		t.Error("a second Start did not fail")
	}
}

func TestPanicIsA500AndLogged(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	reg := prometheus.NewRegistry()
	s := newServer(t, webhook.Options{CertDir: dir, Registerer: reg})
	s.Register("/panic", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	s.Register("/hook", ok)

	var mu sync.Mutex
	var logs []string
	logger := funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, args)
	}, funcr.Options{})
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}()
	testutil.Eventually(t, 10*time.Second, "the server to listen", testutil.True(func() bool { return s.Addr() != "" }))
	client := webhooktest.Client(t, roots)

	code, body, err := get(client, "https://"+s.Addr()+"/panic")
	if err != nil || code != http.StatusInternalServerError {
		t.Fatalf("GET /panic: %d %q %v, want 500", code, body, err)
	}
	if code, _, err := get(client, "https://"+s.Addr()+"/hook"); err != nil || code != http.StatusOK {
		t.Fatalf("after a panic, GET /hook: %d %v", code, err)
	}
	mu.Lock()
	joined := strings.Join(logs, "\n")
	mu.Unlock()
	if !strings.Contains(joined, `"Webhook handler panicked"`) || !strings.Contains(joined, "boom") || !strings.Contains(joined, `"/panic"`) {
		t.Errorf("no log line of the panic in:\n%s", joined)
	}
	if got := counter(t, reg, "controller_runtime_webhook_panics_total", nil); got != 1 {
		t.Errorf("panics_total %v, want 1", got)
	}
	if got := counter(t, reg, "controller_runtime_webhook_requests_total", map[string]string{"webhook": "/panic", "code": "500"}); got != 1 {
		t.Errorf("requests_total{/panic,500} %v, want 1", got)
	}
}

// blockingHandler holds each request until release is closed.
type blockingHandler struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockingHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.entered <- struct{}{}
	<-b.release
	io.WriteString(w, "done")
}

func TestDrainsInFlightRequestsOnShutdown(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	reg := prometheus.NewRegistry()
	s := newServer(t, webhook.Options{CertDir: dir, Registerer: reg, DrainTimeout: time.Minute})
	b := &blockingHandler{entered: make(chan struct{}, 1), release: make(chan struct{})}
	s.Register("/slow", b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	testutil.Eventually(t, 10*time.Second, "the server to listen", testutil.True(func() bool { return s.Addr() != "" }))
	client := webhooktest.Client(t, roots)

	type result struct {
		code int
		body string
		err  error
	}
	got := make(chan result, 1)
	go func() {
		code, body, err := get(client, "https://"+s.Addr()+"/slow")
		got <- result{code, body, err}
	}()
	<-b.entered
	if v := gauge(t, reg, "controller_runtime_webhook_requests_in_flight", "/slow"); v != 1 {
		t.Errorf("requests_in_flight %v during the request, want 1", v)
	}
	cancel()
	testutil.Eventually(t, 10*time.Second, "new connections to be refused", func(context.Context) (bool, error) {
		c, err := net.Dial("tcp", s.Addr())
		if err == nil {
			c.Close()
		}
		return err != nil, nil
	})
	select {
	case err := <-errc:
		t.Fatalf("Start returned (%v) with a request in flight", err)
	default:
	}
	close(b.release)
	if r := <-got; r.err != nil || r.code != http.StatusOK || r.body != "done" {
		t.Errorf("the in-flight request got %d %q %v, want 200 done", r.code, r.body, r.err)
	}
	if err := <-errc; err != nil {
		t.Errorf("Start: %v, want nil after a complete drain", err)
	}
}

func TestDrainIsBounded(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	s := newServer(t, webhook.Options{CertDir: dir, DrainTimeout: 50 * time.Millisecond})
	b := &blockingHandler{entered: make(chan struct{}, 1), release: make(chan struct{})}
	defer close(b.release)
	s.Register("/stuck", b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	testutil.Eventually(t, 10*time.Second, "the server to listen", testutil.True(func() bool { return s.Addr() != "" }))
	client := webhooktest.Client(t, roots)
	got := make(chan error, 1)
	go func() {
		_, _, err := get(client, "https://"+s.Addr()+"/stuck")
		got <- err
	}()
	<-b.entered
	cancel()
	if err := <-errc; err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Start: %v, want the drain's timeout", err)
	}
	if err := <-got; err == nil {
		t.Error("the stuck request was answered, want its connection closed")
	}
}

// TestKeptAliveConnectionsCloseAfterOneMoreResponse: a request sent on a
// kept-alive HTTP/1.1 connection after shutdown began (as the API server
// sends one on its pooled connection to a replica that is stopping) is
// answered, with "Connection: close", instead of meeting a closed
// connection, which the API server would not retry for a POST.
func TestKeptAliveConnectionsCloseAfterOneMoreResponse(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	s := newServer(t, webhook.Options{CertDir: dir, DrainTimeout: time.Minute})
	s.Register("/ok", ok)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Start(ctx) }()
	testutil.Eventually(t, 10*time.Second, "the server to listen", testutil.True(func() bool { return s.Addr() != "" }))
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, MaxConnsPerHost: 1} // HTTP/1.1, kept alive
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	post := func() (*http.Response, bool, error) {
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		req, err := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace), http.MethodPost, "https://"+s.Addr()+"/ok", strings.NewReader("{}"))
		if err != nil {
			return nil, false, err
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, reused, err
		}
		defer resp.Body.Close()
		_, err = io.ReadAll(resp.Body)
		return resp, reused, err
	}
	if _, _, err := post(); err != nil {
		t.Fatal(err)
	}

	cancel()
	testutil.Eventually(t, 10*time.Second, "new connections to be refused", func(context.Context) (bool, error) {
		c, err := net.Dial("tcp", s.Addr())
		if err == nil {
			c.Close()
		}
		return err != nil, nil
	})
	resp, reused, err := post()
	if err != nil || !reused {
		t.Fatalf("a POST on the kept-alive connection while draining: %v (connection reused: %v), want it answered", err, reused)
	}
	if resp.StatusCode != http.StatusOK || !resp.Close {
		t.Errorf("got %d with Connection: close %v, want 200 and the connection closed", resp.StatusCode, resp.Close)
	}
	if err := <-errc; err != nil {
		t.Errorf("Start: %v, want nil", err)
	}
}

func TestMetricNames(t *testing.T) {
	dir := t.TempDir()
	roots := webhooktest.WriteCert(t, dir)
	reg := prometheus.NewRegistry()
	s := newServer(t, webhook.Options{CertDir: dir, Registerer: reg})
	s.Register("/validate", ok)
	url := webhooktest.Start(t, s)
	for range 3 {
		if _, _, err := get(webhooktest.Client(t, roots), url+"/validate"); err != nil {
			t.Fatal(err)
		}
	}
	if got := counter(t, reg, "controller_runtime_webhook_requests_total", map[string]string{"webhook": "/validate", "code": "200"}); got != 3 {
		t.Errorf("requests_total{/validate,200} %v, want 3", got)
	}
	if got := counter(t, reg, "controller_runtime_webhook_requests_total", map[string]string{"webhook": "/validate", "code": "500"}); got != 0 {
		t.Errorf("requests_total{/validate,500} %v, want 0 (and present)", got)
	}
	if got := gauge(t, reg, "controller_runtime_webhook_requests_in_flight", "/validate"); got != 0 {
		t.Errorf("requests_in_flight %v, want 0", got)
	}
	h := find(t, reg, "controller_runtime_webhook_latency_seconds", map[string]string{"webhook": "/validate"})
	if n := h.GetHistogram().GetSampleCount(); n != 3 {
		t.Errorf("latency_seconds count %d, want 3", n)
	}

	// A second server on the same registry shares the series.
	if _, err := webhook.NewServer(webhook.Options{Registerer: reg}); err != nil {
		t.Errorf("a second server on one registry: %v", err)
	}
}

func TestRegisterRejectsBadPaths(t *testing.T) {
	s := newServer(t, webhook.Options{})
	s.Register("/a", ok)
	for _, path := range []string{"/a", "", "a"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", path)
				}
			}()
			s.Register(path, ok)
		}()
	}
}

func TestRunsOnEveryReplica(t *testing.T) {
	if newServer(t, webhook.Options{}).NeedLeaderElection() {
		t.Error("NeedLeaderElection() is true, want false")
	}
}

func find(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metric:
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if want, ok := labels[l.GetName()]; ok && want != l.GetValue() {
					continue metric
				}
			}
			return m
		}
	}
	t.Fatalf("no %s%v", name, labels)
	return nil
}

func counter(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	return find(t, reg, name, labels).GetCounter().GetValue()
}

func gauge(t *testing.T, reg *prometheus.Registry, name, path string) float64 {
	t.Helper()
	return find(t, reg, name, map[string]string{"webhook": path}).GetGauge().GetValue()
}
