package manager

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

func TestPprofEndpoint(t *testing.T) {
	m := mustNew(t, Options{Logger: quiet(), PprofAddr: "127.0.0.1:0"})
	stop := startServing(t, m)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	testutil.Eventually(t, endpointTimeout, "pprof to be bound", testutil.True(func() bool { return m.PprofAddr() != "" }))
	base := "http://" + m.PprofAddr()
	if code, body := get(t, base+"/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/ = %d, want 200 and the index of profiles", code)
	}
	if code, _ := get(t, base+"/debug/pprof/goroutine?debug=1"); code != http.StatusOK {
		t.Errorf("/debug/pprof/goroutine = %d, want 200", code)
	}
}

// Equal addresses, ":0" included, share one server, as the probes and
// /metrics do.
func TestPprofSharesAnAddress(t *testing.T) {
	m := mustNew(t, Options{Logger: quiet(), PprofAddr: "127.0.0.1:0", HealthProbeAddr: "127.0.0.1:0"})
	stop := startServing(t, m)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	if m.PprofAddr() != m.HealthProbeAddr() {
		t.Fatalf("pprof on %s, probes on %s: want one server", m.PprofAddr(), m.HealthProbeAddr())
	}
	base := "http://" + m.HealthProbeAddr()
	for _, path := range []string{"/healthz", "/debug/pprof/"} {
		if code, _ := get(t, base+path); code != http.StatusOK {
			t.Errorf("%s = %d, want 200", path, code)
		}
	}
}

func TestPprofOffByDefault(t *testing.T) {
	m := mustNew(t, Options{Logger: quiet(), MetricsAddr: "127.0.0.1:0"})
	stop := startServing(t, m)
	defer func() {
		if err := stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	if m.PprofAddr() != "" {
		t.Errorf("PprofAddr = %q, want none", m.PprofAddr())
	}
	if code, _ := get(t, "http://"+m.MetricsAddr()+"/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/ on the metrics server = %d, want 404", code)
	}
}
