package manager

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// endpointTimeout bounds the waits for the endpoints, which need a real
// network, so these tests cannot use synctest.
const endpointTimeout = 10 * time.Second

// startServing runs m and waits until its endpoints are bound.
func startServing(t *testing.T, m *Manager) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := runInBackground(ctx, m)
	testutil.Eventually(t, endpointTimeout, "endpoints to be bound", testutil.True(func() bool {
		return (m.opts.HealthProbeAddr == "" || m.HealthProbeAddr() != "") &&
			(m.opts.MetricsAddr == "" || m.MetricsAddr() != "")
	}))
	return func() error { cancel(); return <-done }
}

// /readyz turns 200 once every informer factory and every running
// runnable that reports sync has synced; /healthz is 200 throughout.
func TestReadyzFlipsWhenSynced(t *testing.T) {
	m, err := New(Options{Logger: quiet(), HealthProbeAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	factory := newFakeFactory(nil)
	r := newFake("controller", true, nil)
	mustAdd(t, m, r)
	if err := m.AddInformerFactory(factory); err != nil {
		t.Fatal(err)
	}
	stop := startServing(t, m)
	base := "http://" + m.HealthProbeAddr()
	<-r.started

	if code, body := get(t, base+"/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz = %d %q, want 200 ok", code, body)
	}
	code, body := get(t, base+"/readyz")
	if code != http.StatusInternalServerError ||
		!strings.Contains(body, "[-]informer-sync failed: not synced: informer factory #0") ||
		!strings.Contains(body, "[-]runnable-sync failed: not synced: controller") {
		t.Errorf("/readyz before sync = %d %q, want 500 naming both", code, body)
	}

	close(factory.sync)
	testutil.Eventually(t, endpointTimeout, "informer-sync to pass", testutil.True(func() bool {
		code, _ := get(t, base+"/readyz/informer-sync")
		return code == http.StatusOK
	}))
	if code, _ := get(t, base+"/readyz"); code != http.StatusInternalServerError {
		t.Errorf("/readyz with the runnable unsynced = %d, want 500", code)
	}
	r.synced.Store(true)
	if code, body := get(t, base+"/readyz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/readyz after sync = %d %q, want 200 ok", code, body)
	}
	if code, body := get(t, base+"/readyz?verbose"); code != http.StatusOK || !strings.Contains(body, "[+]runnable-sync ok") {
		t.Errorf("/readyz?verbose = %d %q, want 200 listing checks", code, body)
	}
	if code, _ := get(t, base+"/readyz/no-such-check"); code != http.StatusNotFound {
		t.Errorf("/readyz/no-such-check = %d, want 404", code)
	}
	if err := stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
}

func TestCustomChecks(t *testing.T) {
	m, err := New(Options{Logger: quiet(), HealthProbeAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddHealthzCheck("disk", func(*http.Request) error { return errors.New("disk full") }); err != nil {
		t.Fatal(err)
	}
	if err := m.AddReadyzCheck("warm", Ping); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		name  string
		check Checker
	}{{"disk", Ping}, {"", Ping}, {"a/b", Ping}, {"nil", nil}} {
		if err := m.AddHealthzCheck(bad.name, bad.check); err == nil {
			t.Errorf("AddHealthzCheck(%q) succeeded, want an error", bad.name)
		}
	}
	if err := m.AddReadyzCheck("shutdown", Ping); err == nil {
		t.Error("AddReadyzCheck(shutdown) succeeded over the built-in check")
	}
	stop := startServing(t, m)
	base := "http://" + m.HealthProbeAddr()
	if code, body := get(t, base+"/healthz"); code != http.StatusInternalServerError || !strings.Contains(body, "[-]disk failed: disk full") {
		t.Errorf("/healthz = %d %q, want 500 naming disk", code, body)
	}
	if code, _ := get(t, base+"/healthz/ping"); code != http.StatusOK {
		t.Errorf("/healthz/ping = %d, want 200", code)
	}
	if code, body := get(t, base+"/readyz?verbose"); code != http.StatusOK || !strings.Contains(body, "[+]warm ok") {
		t.Errorf("/readyz?verbose = %d %q, want 200 with warm", code, body)
	}
	if err := stop(); err != nil {
		t.Errorf("Run: %v", err)
	}
}

// /metrics serves the registry the Manager exposes, on its own address or
// shared with the probes.
func TestMetrics(t *testing.T) {
	for _, tc := range []struct {
		name        string
		probe, metr string
		callerReg   bool
	}{
		{name: "own registry, own address", metr: "127.0.0.1:0"},
		{name: "caller registry, shared address", probe: "127.0.0.1:0", metr: "127.0.0.1:0", callerReg: true},
		{name: "probes off, spelled 0", probe: "0", metr: "127.0.0.1:0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Logger: quiet(), HealthProbeAddr: tc.probe, MetricsAddr: tc.metr}
			if tc.callerReg {
				opts.Registry = prometheus.NewRegistry()
			}
			m, err := New(opts)
			if err != nil {
				t.Fatal(err)
			}
			if tc.callerReg && m.Registry() != opts.Registry {
				t.Error("Registry() is not the caller's registry")
			}
			counter := prometheus.NewCounter(prometheus.CounterOpts{Name: "ctrlkit_test_reconciles_total", Help: "test"})
			m.Registry().MustRegister(counter)
			counter.Add(3)
			stop := startServing(t, m)
			if tc.probe == tc.metr && m.HealthProbeAddr() != m.MetricsAddr() {
				t.Errorf("shared address bound twice: %s and %s", m.HealthProbeAddr(), m.MetricsAddr())
			}
			code, body := get(t, "http://"+m.MetricsAddr()+"/metrics")
			if code != http.StatusOK || !strings.Contains(body, "ctrlkit_test_reconciles_total 3") {
				t.Errorf("/metrics = %d, missing the counter:\n%s", code, body)
			}
			if hasGo := strings.Contains(body, "go_goroutines"); hasGo == tc.callerReg {
				t.Errorf("go collector present = %v; want it only in the Manager's own registry", hasGo)
			}
			if (tc.probe == "" || tc.probe == "0") && m.HealthProbeAddr() != "" {
				t.Errorf("HealthProbeAddr = %q with probes disabled", m.HealthProbeAddr())
			}
			if err := stop(); err != nil {
				t.Errorf("Run: %v", err)
			}
		})
	}
}

// A port in use makes Run fail at once, before anything starts.
func TestRunFailsOnBusyAddress(t *testing.T) {
	first, err := New(Options{Logger: quiet(), MetricsAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	stop := startServing(t, first)
	defer stop()

	m, err := New(Options{Logger: quiet(), HealthProbeAddr: "127.0.0.1:0", MetricsAddr: first.MetricsAddr()})
	if err != nil {
		t.Fatal(err)
	}
	r := newFake("never", false, nil)
	mustAdd(t, m, r)
	if err := m.Run(t.Context()); err == nil || !strings.Contains(err.Error(), "metrics server") {
		t.Errorf("Run = %v, want an error naming the metrics server", err)
	}
	if isClosed(r.started) {
		t.Error("a runnable started although Run failed")
	}
}

// brokenListener fails Accept for good once broken is closed.
type brokenListener struct {
	net.Listener
	broken chan struct{}
}

func (l brokenListener) Accept() (net.Conn, error) {
	<-l.broken
	return nil, errors.New("accept: listener broke")
}

// A server that stops serving stops the Manager: a process without its
// probes would be killed by the kubelet anyway, better to say why.
func TestServerFailureStopsManager(t *testing.T) {
	m := mustNew(t, Options{Logger: quiet(), HealthProbeAddr: "127.0.0.1:0"})
	broken := make(chan struct{})
	m.wrapListener = func(l net.Listener) net.Listener { return brokenListener{l, broken} }
	rec := &recorder{}
	r := newFake("worker", false, rec)
	mustAdd(t, m, r)
	done := runInBackground(t.Context(), m)
	<-r.started
	close(broken)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "health probe server") || !strings.Contains(err.Error(), "listener broke") {
		t.Fatalf("Run = %v, want the health probe server's error", err)
	}
	if strings.Count(err.Error(), "listener broke") != 1 {
		t.Errorf("Run = %q: the cause is reported more than once", err)
	}
	if got, want := stops(rec.get()), []string{"stop worker"}; !equal(got, want) {
		t.Errorf("stops = %q, want %q: the worker must be stopped", got, want)
	}
}
