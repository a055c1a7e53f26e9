package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

func TestByteCounterSplitsListsFromWatches(t *testing.T) {
	c := &byteCounter{}
	rt := c.wrap(roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		body := strings.Repeat("x", len(req.URL.Path)) // a body per request, of known length
		return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader(body))}, nil
	}))
	var wantList, wantWatch int64
	for _, r := range []struct {
		method, url string
		kind        string
	}{
		{"GET", "/apis/apps/v1/deployments?limit=500", "list"},
		{"GET", "/api/v1/namespaces/ns/pods?shardSelector=x", "list"},
		{"GET", "/api/v1/namespaces", "list"},
		{"GET", "/apis/apps/v1/deployments?watch=true&resourceVersion=5", "watch"},
		{"GET", "/api/v1/pods?allowWatchBookmarks=true&watch=1", "watch"},
		{"GET", "/api/v1/namespaces/ns/pods/p", ""}, // one object
		{"GET", "/api/v1/namespaces/ns", ""},        // one namespace
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/d/status", ""},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", ""},
		{"GET", "/metrics", ""},
	} {
		req, err := http.NewRequest(r.method, "https://127.0.0.1:6443"+r.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := readKind(req); got != r.kind {
			t.Errorf("readKind(%s %s) = %q, want %q", r.method, r.url, got, r.kind)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		switch r.kind {
		case "list":
			wantList += int64(len(req.URL.Path))
		case "watch":
			wantWatch += int64(len(req.URL.Path))
		}
	}
	if got := c.list.Load(); got != wantList {
		t.Errorf("list bytes %d, want %d", got, wantList)
	}
	if got := c.watch.Load(); got != wantWatch {
		t.Errorf("watch bytes %d, want %d", got, wantWatch)
	}
}

// TestReplicaReportParses runs the replica's report loop on fixed stores
// and counters: it prints the ready line once ready, a report when asked,
// and nothing more when stdin closes; the benchmark parses both back.
func TestReplicaReportParses(t *testing.T) {
	pods := cache.NewStore(cache.MetaNamespaceKeyFunc)
	for i := range 3 {
		if err := pods.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: fmt.Sprint("p", i)}}); err != nil {
			t.Fatal(err)
		}
	}
	stores := map[string]cache.Store{"pods": pods, "deployments": cache.NewStore(cache.MetaNamespaceKeyFunc)}
	received := &byteCounter{}
	received.list.Add(1234)
	received.watch.Add(56789)
	sent := newWriteCounter()
	sent.counts[writeKey{"PUT", "deployments/status"}] = 4
	sent.counts[writeKey{"POST", "replicasets"}] = 2

	stdinR, stdinW := io.Pipe()
	outR, outW := io.Pipe()
	var ready atomic.Bool
	status := func(event string) replicaReport {
		return replicaReport{Event: event, ID: "replica-1", Members: 3, RangeFraction: 1.0 / 3}
	}
	loopDone := make(chan error, 1)
	go func() {
		loopDone <- replicaLoop(t.Context(), stdinR, outW, ready.Load,
			func() replicaReport { return status(readyEvent) },
			func() replicaReport { return measure(status(reportEvent), stores, received, sent) },
			make(chan struct{}))
		outW.Close()
	}()
	lines := bufio.NewScanner(outR)
	var printed []byte
	next := func() {
		t.Helper()
		if !lines.Scan() {
			t.Fatalf("replica output ended (%v) after %q", lines.Err(), printed)
		}
		printed = append(append(printed, lines.Bytes()...), '\n')
	}

	ready.Store(true)
	next()
	gotReady, report, err := parseReplicaOutput(printed)
	if err != nil || !gotReady || report != nil {
		t.Fatalf("after the ready line %q: ready %v, report %v, err %v", printed, gotReady, report, err)
	}
	if _, err := fmt.Fprintln(stdinW, reportCommand); err != nil {
		t.Fatal(err)
	}
	next()
	gotReady, report, err = parseReplicaOutput(printed)
	if err != nil || !gotReady || report == nil {
		t.Fatalf("after the report %q: ready %v, report %v, err %v", printed, gotReady, report, err)
	}
	if report.HeapInuse == 0 || report.HeapAlloc == 0 {
		t.Errorf("report has no heap figures: %+v", report)
	}
	report.HeapInuse, report.HeapAlloc = 0, 0
	want := &replicaReport{
		Event: reportEvent, ID: "replica-1", Members: 3, RangeFraction: 1.0 / 3,
		Cached:    map[string]int{"pods": 3, "deployments": 0},
		ListBytes: 1234, WatchBytes: 56789,
		Writes: []writeCount{{"PUT", "deployments/status", 4}, {"POST", "replicasets", 2}},
	}
	if diff := cmp.Diff(want, report); diff != "" {
		t.Errorf("parsed report (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(writes{{"PUT", "deployments/status"}: 4, {"POST", "replicasets"}: 2}, report.writes()); diff != "" {
		t.Errorf("report.writes() (-want +got):\n%s", diff)
	}
	if report.cachedTotal() != 3 {
		t.Errorf("cachedTotal() = %d, want 3", report.cachedTotal())
	}

	// The end of stdin ends the loop; having reported, it prints no more.
	stdinW.Close()
	if err := <-loopDone; err != nil {
		t.Errorf("replicaLoop: %v", err)
	}
	if lines.Scan() {
		t.Errorf("replica printed %q after stdin closed", lines.Text())
	}
}

func TestReplicaReportsOnceWhenStoppedUnasked(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel() // SIGTERM before anyone asked
	var out strings.Builder
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	report := func() replicaReport { return replicaReport{Event: reportEvent, ID: "r"} }
	if err := replicaLoop(ctx, stdinR, &out, func() bool { return false }, report, report, make(chan struct{})); err != nil {
		t.Fatal(err)
	}
	if ready, r, err := parseReplicaOutput([]byte(out.String())); err != nil || ready || r == nil || r.ID != "r" {
		t.Errorf("output %q: ready %v, report %v, err %v; want one report", out.String(), ready, r, err)
	}
	stopped := make(chan struct{})
	close(stopped)
	stdinR2, stdinW2 := io.Pipe()
	defer stdinW2.Close()
	if err := replicaLoop(t.Context(), stdinR2, io.Discard, func() bool { return false }, report, report, stopped); err == nil {
		t.Error("replicaLoop returned no error when the controller stopped")
	}
}

func TestParseReplicaOutputSkipsAnUnfinishedLine(t *testing.T) {
	ready, r, err := parseReplicaOutput([]byte(`{"event":"ready","id":"a"}` + "\n" + `{"event":"rep`))
	if err != nil || !ready || r != nil {
		t.Errorf("ready %v, report %v, err %v; want ready, no report", ready, r, err)
	}
	if _, _, err := parseReplicaOutput([]byte("panic: oops\n")); err == nil {
		t.Error("a line that is not JSON parsed")
	}
	if _, _, err := parseReplicaOutput([]byte(`{"event":"hello"}` + "\n")); err == nil {
		t.Error("an unknown event parsed")
	}
}

// fakeReplicaEnv makes the test binary, started by startReplica, a fake
// replica (see TestMain): "polite" reports when asked and exits on
// SIGTERM; "stubborn" ignores SIGTERM.
const fakeReplicaEnv = "SCALEBENCH_FAKE_REPLICA"

// runFakeReplica is the test binary as a fake replica.
func runFakeReplica(mode string) int {
	ctx := context.Background()
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	} else {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM)
		defer stop()
	}
	report := func() replicaReport {
		return replicaReport{Event: reportEvent, ID: "fake", Cached: map[string]int{"pods": 1}}
	}
	ready := func() replicaReport { return replicaReport{Event: readyEvent, ID: "fake"} }
	if err := replicaLoop(ctx, os.Stdin, os.Stdout, func() bool { return true }, ready, report, make(chan struct{})); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if mode == "stubborn" {
		select {} // until killed
	}
	return 0
}

func TestReplicaProcessesReportAndStop(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Setenv(fakeReplicaEnv, "polite")
	polite, err := startReplica(self, "polite", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeReplicaEnv, "stubborn")
	stubborn, err := startReplica(self, "stubborn", dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := replicaGroup{polite, stubborn}
	t.Cleanup(func() { _ = g.stop(5 * time.Second) })

	if err := g.waitReady(t.Context(), time.Minute); err != nil {
		t.Fatal(err)
	}
	reports, err := g.reports(t.Context(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if len(reports) != 2 || reports[0].Cached["pods"] != 1 {
		t.Errorf("reports %+v, want two with one pod cached", reports)
	}

	// The polite one exits on SIGTERM; the stubborn one is killed after
	// the bound. Neither survives. (The bound allows for the race
	// detector's one second sleep at exit.)
	began := time.Now()
	err = g.stop(5 * time.Second)
	if err == nil || !strings.Contains(err.Error(), "replica stubborn did not exit within 5s of SIGTERM; killed") || strings.Contains(err.Error(), "polite") {
		t.Errorf("stop: %v; want only the stubborn replica killed", err)
	}
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("stop took %s", d)
	}
	for _, p := range g {
		select {
		case <-p.Done():
		default:
			t.Fatalf("replica %s still running after stop", p.id)
		}
		if err := syscall.Kill(p.Pid(), 0); err == nil {
			t.Errorf("replica %s: signal 0 after stop succeeded: the process exists", p.id)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "polite.log")); err != nil {
		t.Errorf("no log file: %v", err)
	}
}
