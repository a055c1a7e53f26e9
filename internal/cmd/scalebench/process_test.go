package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
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
// its log.
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
	if err := stopAll([]*process{p}); err != nil {
		t.Errorf("stop of an exited process = %v", err)
	}
}
