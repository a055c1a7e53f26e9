package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseFlagsMemory(t *testing.T) {
	cfg, err := parseFlags([]string{"memory"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.deployments != 1000 || cfg.replicas != 10 || cfg.namespaces != 20 || cfg.settle != 2*time.Minute || len(cfg.runs()) != 6 {
		t.Errorf("memory defaults: N %d, R %d, %d namespaces, settle %s, %d runs; want 1000, 10, 20, 2m0s, 6 (3 of each controller)",
			cfg.deployments, cfg.replicas, cfg.namespaces, cfg.settle, len(cfg.runs()))
	}
	if cfg.noRollout {
		t.Error("memory: the burst includes the rollout unless -rollout=false")
	}
	if cfg, err = parseFlags(strings.Fields("memory -rollout=false -runs 1"), io.Discard); err != nil || !cfg.noRollout || len(cfg.runs()) != 2 {
		t.Errorf("memory -rollout=false -runs 1: noRollout %t, %d runs, err %v", cfg.noRollout, len(cfg.runs()), err)
	}
	if _, err := parseFlags(strings.Fields("memory -runs 0 -settle 0s"), io.Discard); err == nil || !strings.Contains(err.Error(), "-runs must be at least 1") {
		t.Errorf("memory -runs 0: err = %v", err)
	}
}

// fakeMemProcess serves /metrics and /debug/pprof/heap as ours and kcm do,
// counting the forced GCs, with a deployment queue of the given adds and
// depth.
type fakeMemProcess struct {
	adds, depth atomic.Int64
	gcs         atomic.Int64
}

func (f *fakeMemProcess) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/metrics":
		fmt.Fprintf(w, `# TYPE process_resident_memory_bytes gauge
process_resident_memory_bytes 1.048576e+08
# TYPE go_memstats_heap_inuse_bytes gauge
go_memstats_heap_inuse_bytes 5.24288e+07
# TYPE go_memstats_heap_alloc_bytes gauge
go_memstats_heap_alloc_bytes 4.194304e+07
# TYPE workqueue_adds_total counter
workqueue_adds_total{name="deployment"} %d
workqueue_adds_total{name="other"} 5000
# TYPE workqueue_depth gauge
workqueue_depth{name="deployment",priority="0"} %d
workqueue_depth{name="deployment",priority="10"} 0
`, f.adds.Load(), f.depth.Load())
	case "/debug/pprof/heap":
		if r.URL.Query().Get("gc") == "1" {
			f.gcs.Add(1)
		}
		fmt.Fprint(w, "a profile")
	default:
		http.NotFound(w, r)
	}
}

// A sample waits until the Deployment queue, and only it, is idle after
// a key per Deployment, and reads the memory around forced GCs.
func TestSampleMemory(t *testing.T) {
	f := &fakeMemProcess{}
	srv := httptest.NewServer(f)
	defer srv.Close()
	p := &process{name: "fake", base: srv.URL, client: plainHTTP}
	profile := filepath.Join(t.TempDir(), "heap.pb.gz")

	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	f.adds.Store(999)
	if _, err := sampleMemory(ctx, p, 1000, time.Millisecond, profile); err == nil || !strings.Contains(err.Error(), "999 adds") {
		t.Errorf("sample after 999 of 1000 adds = %v, want not idle", err)
	}
	f.adds.Store(1000)
	f.depth.Store(3)
	ctx, cancel = context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	if _, err := sampleMemory(ctx, p, 1000, time.Millisecond, profile); err == nil || !strings.Contains(err.Error(), "depth 3") {
		t.Errorf("sample with 3 keys queued = %v, want not idle", err)
	}
	f.depth.Store(0)
	f.gcs.Store(0)
	s, err := sampleMemory(t.Context(), p, 1000, time.Millisecond, profile)
	if err != nil {
		t.Fatal(err)
	}
	if want := (memSample{rssFirst: 100 << 20, rssLast: 100 << 20, heapInuse: 50 << 20, heapAlloc: 40 << 20}); s != want {
		t.Errorf("sample = %+v, want %+v", s, want)
	}
	if got := f.gcs.Load(); got != 2 {
		t.Errorf("%d forced GCs; want one at the start of the window and one before the profile", got)
	}
	if b, err := os.ReadFile(profile); err != nil || string(b) != "a profile" {
		t.Errorf("profile file: %q, %v", b, err)
	}
}

func TestRenderMemory(t *testing.T) {
	const m = 1 << 20
	sample := func(rssLast, heapInuse float64) memSample {
		return memSample{rssFirst: (rssLast + 20) * m, rssLast: rssLast * m, heapInuse: heapInuse * m, heapAlloc: 40 * m}
	}
	run := func(c controllerKind, burst, restart memSample) result {
		return result{runSpec: runSpec{controller: c}, create: phaseResult{time.Minute, 1000, 1000},
			memory: memoryResult{burst: burst, restart: restart}}
	}
	// Ours' heap after the burst 50, 66, 60 MiB, restarted 50, 55, 50;
	// kcm's 80, 72, 60 after its burst and 60, 60, 50 restarted.
	pairs := pairUp([]result{
		run(ours, sample(100, 50), sample(90, 50)), run(upstream, sample(160, 80), sample(150, 60)),
		run(upstream, sample(160, 72), sample(150, 60)), run(ours, sample(100, 66), sample(90, 55)),
		run(ours, sample(100, 60), sample(90, 50)), run(upstream, sample(160, 60), sample(150, 50)),
	})
	got := renderMemory(pairs)
	want := `| process | measure | pair 1 | pair 2 | pair 3 | median |
|---|---|---:|---:|---:|---:|
| ours, after the burst | RSS first | 120.0 MiB | 120.0 MiB | 120.0 MiB | 120.0 MiB |
| ours, after the burst | RSS last | 100.0 MiB | 100.0 MiB | 100.0 MiB | 100.0 MiB |
| ours, after the burst | heap_inuse | 50.0 MiB | 66.0 MiB | 60.0 MiB | 60.0 MiB |
| ours, after the burst | heap_alloc (live) | 40.0 MiB | 40.0 MiB | 40.0 MiB | 40.0 MiB |
| ours, restarted | RSS first | 110.0 MiB | 110.0 MiB | 110.0 MiB | 110.0 MiB |
| ours, restarted | RSS last | 90.0 MiB | 90.0 MiB | 90.0 MiB | 90.0 MiB |
| ours, restarted | heap_inuse | 50.0 MiB | 55.0 MiB | 50.0 MiB | 50.0 MiB |
| ours, restarted | heap_alloc (live) | 40.0 MiB | 40.0 MiB | 40.0 MiB | 40.0 MiB |
| kube-controller-manager, after the burst | RSS first | 180.0 MiB | 180.0 MiB | 180.0 MiB | 180.0 MiB |
| kube-controller-manager, after the burst | RSS last | 160.0 MiB | 160.0 MiB | 160.0 MiB | 160.0 MiB |
| kube-controller-manager, after the burst | heap_inuse | 80.0 MiB | 72.0 MiB | 60.0 MiB | 72.0 MiB |
| kube-controller-manager, after the burst | heap_alloc (live) | 40.0 MiB | 40.0 MiB | 40.0 MiB | 40.0 MiB |
| kube-controller-manager, restarted | RSS first | 170.0 MiB | 170.0 MiB | 170.0 MiB | 170.0 MiB |
| kube-controller-manager, restarted | RSS last | 150.0 MiB | 150.0 MiB | 150.0 MiB | 150.0 MiB |
| kube-controller-manager, restarted | heap_inuse | 60.0 MiB | 60.0 MiB | 50.0 MiB | 60.0 MiB |
| kube-controller-manager, restarted | heap_alloc (live) | 40.0 MiB | 40.0 MiB | 40.0 MiB | 40.0 MiB |

| target | pair 1 | pair 2 | pair 3 | median | spread | bound | met |
|---|---:|---:|---:|---:|---:|---:|---|
| heap_inuse, ours after the burst / kube-controller-manager's restarted | 0.83× | 1.10× | 1.20× | 1.10× | 0.83×–1.20× | ≤ 1.00× | no |
| heap_inuse, ours after the burst / ours restarted | 1.00× | 1.20× | 1.20× | 1.20× | 1.00×–1.20× | ≤ 1.10× | no |
| RSS (last), ours after the burst / kube-controller-manager's restarted | 0.67× | 0.67× | 0.67× | 0.67× | 0.67×–0.67× | ≤ 0.80× | yes |
| heap_inuse, kube-controller-manager's after the burst / restarted | 1.33× | 1.20× | 1.20× | 1.20× | 1.20×–1.33× | — | — |
| heap_inuse, ours after the burst / kube-controller-manager's after the burst | 0.62× | 0.92× | 1.00× | 0.92× | 0.62×–1.00× | — | — |
`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("renderMemory (-want +got):\n%s", diff)
	}
}
