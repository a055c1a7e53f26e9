package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/wait"
)

// fakeMember serves /readyz and /metrics as a ring member of
// examples/deployment-controller would; set members, range and serving
// fractions as the test goes.
type fakeMember struct {
	ready           atomic.Bool
	members         atomic.Int64
	target, serving atomic.Value // string, as exposed
}

func (f *fakeMember) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/readyz":
		if !f.ready.Load() {
			http.Error(w, "not synced: informers", http.StatusInternalServerError)
		}
	case "/metrics":
		fmt.Fprintf(w, `# TYPE ctrlkit_shard_ring_members gauge
ctrlkit_shard_ring_members{ring="scalebench"} %d
# TYPE ctrlkit_shard_range_fraction gauge
ctrlkit_shard_range_fraction{ring="scalebench"} %s
# TYPE ctrlkit_shard_serving_fraction gauge
ctrlkit_shard_serving_fraction{ring="scalebench"} %s
# TYPE ctrlkit_shard_keys_owned gauge
ctrlkit_shard_keys_owned{ring="scalebench"} 150
# TYPE ctrlkit_shard_cached_objects gauge
ctrlkit_shard_cached_objects{resource="deployments.apps",ring="scalebench"} 500
ctrlkit_shard_cached_objects{resource="pods",ring="scalebench"} 1500
`, f.members.Load(), f.target.Load(), f.serving.Load())
	default:
		http.NotFound(w, r)
	}
}

// A member is ready once its caches have synced and it serves its whole
// target in a ring of the size asked for; its report is its metrics.
func TestControllerReadinessAndReport(t *testing.T) {
	f := &fakeMember{}
	f.target.Store("0.5")
	f.serving.Store("0")
	srv := httptest.NewServer(f)
	defer srv.Close()
	p := &process{name: "controller-0", base: srv.URL, client: plainHTTP}

	notReady := func(want string) {
		t.Helper()
		if err := oursReady(t.Context(), p, 2); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ready = %v, want an error with %q", err, want)
		}
	}
	notReady("not synced")
	f.ready.Store(true)
	f.members.Store(1)
	notReady("sees 1 of 2 ring members, serves 0 of its 0.5 of the hash space")
	f.members.Store(2)
	notReady("serves 0 of its 0.5")
	f.serving.Store("0.5")
	if err := oursReady(t.Context(), p, 2); err != nil {
		t.Errorf("ready = %v once the ring is whole and served", err)
	}
	if err := oursReady(t.Context(), p, 0); err != nil {
		t.Errorf("ready without a ring = %v", err)
	}
	got, err := reports(t.Context(), []*process{p})
	if err != nil {
		t.Fatal(err)
	}
	want := []memberReport{{name: "controller-0", rangeFraction: 0.5, keys: 150, cached: map[string]int{"deployments.apps": 500, "pods": 1500}}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(memberReport{})); diff != "" {
		t.Errorf("reports (-want +got):\n%s", diff)
	}
}

// A process that exits before it is ready fails the wait with the end of
// its log; stopping it then reports how it ended.
func TestWaitReadyReportsAnEarlyExit(t *testing.T) {
	p, err := startProcess("controller-0", "sh", []string{"-c", "echo 'E1205 cannot reach the API server'; exit 2"}, t.TempDir(), "", plainHTTP)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Done()
	err = waitReady(t.Context(), []*process{p}, func(context.Context, *process) error { return errors.New("not yet") })
	if err == nil || !strings.Contains(err.Error(), "exit status 2") || !strings.Contains(err.Error(), "cannot reach the API server") {
		t.Errorf("waitReady = %v, want the exit status and the log's end", err)
	}
	if err := stopAll([]*process{p}); err == nil || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("stop of a process that failed = %v, want its exit status", err)
	}
}

// A process that leaves on SIGTERM, with status 0 or by the signal, has
// stopped cleanly; one that outlives the grace has not.
func TestStopAcceptsAnExitBySIGTERM(t *testing.T) {
	for _, tc := range []struct {
		script string
		clean  bool
	}{
		{"trap 'exit 0' TERM; echo up; while :; do sleep 0.05; done", true},
		{"echo up; exec sleep 60", true}, // sleep dies of the signal
		{"trap 'exit 3' TERM; echo up; while :; do sleep 0.05; done", false},
	} {
		dir := t.TempDir()
		p, err := startProcess("child", "sh", []string{"-c", tc.script}, dir, "", plainHTTP)
		if err != nil {
			t.Fatal(err)
		}
		if err := wait.PollUntilContextTimeout(t.Context(), 10*time.Millisecond, 10*time.Second, true, func(context.Context) (bool, error) {
			log, err := os.ReadFile(p.logPath)
			return strings.Contains(string(log), "up"), err
		}); err != nil {
			t.Fatal(err)
		}
		if err := p.stop(); (err == nil) != tc.clean {
			t.Errorf("%q: stop = %v, want clean %t", tc.script, err, tc.clean)
		}
	}
}
