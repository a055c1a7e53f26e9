package main

import (
	"io"
	"net/http"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// These tests need no cluster: the benchmark itself is run by hand (see
// RESULTS.md).

func TestMain(m *testing.M) {
	// Started by TestReplicaProcessesReportAndStop as a replica process.
	if mode := os.Getenv(fakeReplicaEnv); mode != "" {
		os.Exit(runFakeReplica(mode))
	}
	goleak.VerifyTestMain(m)
}

func TestParseFlagsDefaults(t *testing.T) {
	cfg, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.deployments != 1000 || cfg.replicas != 3 {
		t.Errorf("N, R = %d, %d; want 1000, 3", cfg.deployments, cfg.replicas)
	}
	if diff := cmp.Diff([]controllerKind{ours, upstream}, cfg.controllers); diff != "" {
		t.Errorf("controllers (-want +got):\n%s", diff)
	}
	if cfg.workers != 5 || cfg.qps != 500 || cfg.burst != 1000 || cfg.phaseTimeout != 20*time.Minute {
		t.Errorf("workers %d qps %g burst %d timeout %s; want 5, 500, 1000, 20m", cfg.workers, cfg.qps, cfg.burst, cfg.phaseTimeout)
	}
	if cfg.gogc != 100 {
		t.Errorf("gogc = %d, want Go's default 100", cfg.gogc)
	}
	// 1000 Deployments of 3 (+1 surge) pods, twice over, 1000 pods a node.
	if got := cfg.nodeCount(); got != 8 {
		t.Errorf("nodeCount() = %d, want 8", got)
	}
}

func TestParseFlagsSmallRun(t *testing.T) {
	cfg, err := parseFlags(strings.Fields("-n 20 -r 2 -controller ours -phase-timeout 2m -cpuprofile cpu.out -gogc 400"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.gogc != 400 {
		t.Errorf("gogc = %d, want 400", cfg.gogc)
	}
	if cfg.deployments != 20 || cfg.replicas != 2 || cfg.phaseTimeout != 2*time.Minute || cfg.cpuProfile != "cpu.out" {
		t.Errorf("got N %d R %d timeout %s profile %q", cfg.deployments, cfg.replicas, cfg.phaseTimeout, cfg.cpuProfile)
	}
	if diff := cmp.Diff([]controllerKind{ours}, cfg.controllers); diff != "" {
		t.Errorf("controllers (-want +got):\n%s", diff)
	}
	if got := cfg.nodeCount(); got != 1 {
		t.Errorf("nodeCount() = %d, want 1", got)
	}
	cfg, err = parseFlags(strings.Fields("-controller upstream -nodes 3 -idle-informers"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.idleInformers {
		t.Error("-idle-informers not set")
	}
	if diff := cmp.Diff([]controllerKind{upstream}, cfg.controllers); diff != "" {
		t.Errorf("controllers (-want +got):\n%s", diff)
	}
	if got := cfg.nodeCount(); got != 3 {
		t.Errorf("nodeCount() with -nodes 3 = %d", got)
	}
}

func TestParseFlagsRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []string // substrings of the error
	}{
		{"-controller kcm", []string{`-controller must be ours, upstream or both, got "kcm"`}},
		{"-n 0 -r -1", []string{"-n must be positive, got 0", "-r must be positive, got -1"}},
		{"-qps 0 -phase-timeout 0s", []string{"-qps must be positive", "-phase-timeout must be positive"}},
		{"-nodes -2", []string{"-nodes must not be negative"}},
		{"-gogc 0", []string{"-gogc must be positive, got 0"}},
		{"-controller ours -idle-informers", []string{"-idle-informers applies to upstream runs only"}},
		{"-n many", []string{`invalid value "many" for flag -n`}},
		{"extra", []string{`unexpected arguments ["extra"]`}},
	} {
		_, err := parseFlags(strings.Fields(tc.args), io.Discard)
		if err == nil {
			t.Errorf("parseFlags(%q) succeeded", tc.args)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("parseFlags(%q) = %q, want it to mention %q", tc.args, err, w)
			}
		}
	}
}

func TestRenderTable(t *testing.T) {
	results := []result{
		{
			controller: ours, deployments: 20, replicas: 3,
			create:  phaseResult{elapsed: 2340 * time.Millisecond, available: 20, total: 20},
			rollout: phaseResult{elapsed: 7 * time.Second, available: 20, total: 20},
			apiWrites: writes{
				{"PUT", "deployments/status"}: 60,
				{"POST", "replicasets"}:       40,
			},
			apiFailed:    writes{{"PUT", "deployments/status"}: 4},
			events:       140,
			clientWrites: writes{{"POST", "events"}: 140, {"POST", "replicasets"}: 40, {"PUT", "deployments/status"}: 60},
		},
		{
			controller: upstream, deployments: 20, replicas: 3,
			create: phaseResult{elapsed: 20 * time.Minute, available: 7, total: 20},
		},
	}
	want := `| controller | N | R | create→available (s) | rollout→available (s) | Deployment controller writes (kube-apiserver metrics) | of which failed | event writes | total writes | writes sent by our client |
|---|---:|---:|---:|---:|---|---|---:|---:|---|
| ours | 20 | 3 | 2.3 | 7.0 | PUT deployments/status: 60<br>POST replicasets: 40 | PUT deployments/status: 4 | 140 | 240 | 240: PUT deployments/status: 60<br>POST events: 140<br>POST replicasets: 40 |
| upstream | 20 | 3 | timed out after 1200 (7/20 available) | not run | none | none | 0 | 0 | n/a |
`
	if diff := cmp.Diff(want, renderTable(results)); diff != "" {
		t.Errorf("renderTable (-want +got):\n%s", diff)
	}
}

func TestAPIResource(t *testing.T) {
	for path, want := range map[string]string{
		"/apis/apps/v1/namespaces/ns/deployments":                  "deployments",
		"/apis/apps/v1/namespaces/ns/deployments/d/status":         "deployments/status",
		"/apis/apps/v1/namespaces/ns/replicasets/rs":               "replicasets",
		"/api/v1/namespaces/ns/events":                             "events",
		"/api/v1/namespaces/ns/pods/p/binding":                     "pods/binding",
		"/api/v1/namespaces/ns":                                    "namespaces",
		"/api/v1/namespaces/ns/finalize":                           "namespaces/finalize",
		"/api/v1/namespaces/ns/status":                             "namespaces/status",
		"/api/v1/nodes/n1/status":                                  "nodes/status",
		"/apis/coordination.k8s.io/v1/namespaces/ns/leases/lease1": "leases",
		"/metrics":   "",
		"/api":       "",
		"/apis/apps": "",
	} {
		if got := apiResource(path); got != want {
			t.Errorf("apiResource(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestParseWrites(t *testing.T) {
	text := `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="apps",resource="replicasets",scope="resource",subresource="",verb="POST",version="v1"} 12
apiserver_request_total{code="409",component="apiserver",dry_run="",group="apps",resource="replicasets",scope="resource",subresource="",verb="POST",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 7
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="LIST",version="v1"} 99
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""} 5
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1",le="+Inf"} 7
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 0.21
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 7
apiserver_request_duration_seconds_bucket{component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="LIST",version="v1",le="+Inf"} 99
apiserver_request_duration_seconds_sum{component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="LIST",version="v1"} 9
apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="LIST",version="v1"} 99
# TYPE apiserver_other counter
apiserver_other 1
`
	got, err := parseWrites([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := writes{{"POST", "replicasets"}: 15, {"PUT", "deployments/status"}: 7}
	if diff := cmp.Diff(want, got.all); diff != "" {
		t.Errorf("parseWrites: all (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(writes{{"POST", "replicasets"}: 3}, got.failed); diff != "" {
		t.Errorf("parseWrites: failed (-want +got):\n%s", diff)
	}
	// Only writes are timed; the mean is over the histogram's count.
	if got, want := got.meanLatency(got.all), "PUT deployments/status: 30.0 ms"; got != want {
		t.Errorf("meanLatency = %q, want %q", got, want)
	}
	// Deltas between two scrapes drop what did not change.
	status := writeKey{"PUT", "deployments/status"}
	earlier := serverWrites{
		all:    writes{{"POST", "replicasets"}: 10, status: 7},
		failed: writes{{"POST", "replicasets"}: 1},
		timed:  writes{status: 2}, seconds: map[writeKey]float64{status: 0.01},
	}
	delta := got.minus(earlier)
	want = writes{{"POST", "replicasets"}: 5}
	if diff := cmp.Diff(serverWrites{
		all: want, failed: writes{{"POST", "replicasets"}: 2},
		timed: writes{status: 5}, seconds: map[writeKey]float64{status: 0.2},
	}, delta, cmp.AllowUnexported(serverWrites{}), cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("minus (-want +got):\n%s", diff)
	}
	if got, want := delta.meanLatency(writes{status: 5}), "PUT deployments/status: 40.0 ms"; got != want {
		t.Errorf("meanLatency of the delta = %q, want %q", got, want)
	}
	if _, err := parseWrites([]byte("apiserver_other 1\n")); err == nil || !strings.Contains(err.Error(), "no apiserver_request_total") {
		t.Errorf("parseWrites without the metric: err = %v", err)
	}
	if _, err := parseWrites([]byte("not {metrics\n")); err == nil {
		t.Error("parseWrites of garbage succeeded")
	}
}

func TestWritesAttribution(t *testing.T) {
	before := writes{{"POST", "pods"}: 5, {"POST", "deployments"}: 1}
	after := writes{
		{"POST", "pods"}:               65,
		{"PUT", "replicasets/status"}:  30,
		{"POST", "deployments"}:        21,
		{"PATCH", "deployments"}:       20,
		{"PUT", "deployments/status"}:  50,
		{"POST", "replicasets"}:        40,
		{"DELETE", "replicasets"}:      2,
		{"PATCH", "pods/status"}:       60,
		{"POST", "events"}:             90,
		{"PUT", "replicasets"}:         0,
		{"PUT", "deploymentsfoo"}:      4, // not a Deployment: the match is on the whole resource name
		{"POST", "namespaces"}:         1,
		{"PATCH", "deployments/scale"}: 0,
	}
	bench := writes{{"POST", "deployments"}: 20, {"PATCH", "deployments"}: 20, {"POST", "namespaces"}: 1}
	got := after.minus(before).filter(byDeploymentController).minus(bench.filter(byDeploymentController))
	want := writes{{"PUT", "deployments/status"}: 50, {"POST", "replicasets"}: 40, {"DELETE", "replicasets"}: 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("attributed writes (-want +got):\n%s", diff)
	}
	if got.total() != 92 {
		t.Errorf("total() = %d, want 92", got.total())
	}
}

func TestWriteCounterCountsWritesOnly(t *testing.T) {
	c := newWriteCounter()
	var sent int
	rt := c.wrap(roundTripperFunc(func(*http.Request) (*http.Response, error) {
		sent++
		return &http.Response{StatusCode: http.StatusConflict, Body: http.NoBody}, nil
	}))
	for _, r := range []struct{ method, path string }{
		{"GET", "/apis/apps/v1/namespaces/ns/deployments"},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status"},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status"}, // failed writes count too
		{"POST", "/api/v1/namespaces/ns/events"},
		{"POST", "/metrics"}, // not a resource
	} {
		req, err := http.NewRequest(r.method, "https://127.0.0.1:6443"+r.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if sent != 5 {
		t.Errorf("%d requests reached the wrapped transport, want 5", sent)
	}
	want := writes{{"PUT", "deployments/status"}: 2, {"POST", "events"}: 1}
	if diff := cmp.Diff(want, c.snapshot()); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

func TestTrackerWaitsForTheImageAndEveryReplica(t *testing.T) {
	deploy := func(image string, generation, observed int64, replicas, updated, available int32) *appsv1.Deployment {
		return &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "d", Generation: generation},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr.To[int32](3),
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: image}}}},
			},
			Status: appsv1.DeploymentStatus{ObservedGeneration: observed, Replicas: replicas, UpdatedReplicas: updated, AvailableReplicas: available},
		}
	}
	tr := newTracker()
	tr.startPhase(imageV2)
	for _, d := range []*appsv1.Deployment{
		deploy(imageV1, 1, 1, 3, 3, 3), // the old image, complete: a stale copy
		deploy(imageV2, 2, 1, 3, 3, 3), // new spec not yet observed
		deploy(imageV2, 2, 2, 4, 3, 3), // an old pod left
		deploy(imageV2, 2, 2, 3, 2, 3), // not all updated
		deploy(imageV2, 2, 2, 3, 3, 2), // not all available
	} {
		tr.observe(d)
		if n, _ := tr.progress(); n != 0 {
			t.Fatalf("counted %+v as available", d.Status)
		}
	}
	tr.observe(deploy(imageV2, 2, 2, 3, 3, 3))
	n, first := tr.progress()
	if n != 1 || first.IsZero() {
		t.Fatalf("progress() = %d, %v after the rollout completed; want 1 and a time", n, first)
	}
	// Later updates do not move the time it first became available.
	tr.observe(deploy(imageV2, 2, 2, 3, 3, 3))
	if _, again := tr.progress(); !again.Equal(first) {
		t.Errorf("completion time moved from %v to %v", first, again)
	}
	tr.observe("not a deployment")
	tr.startPhase(imageV1)
	if n, _ := tr.progress(); n != 0 {
		t.Errorf("a new phase starts with %d available", n)
	}
}

func TestQueueSummary(t *testing.T) {
	text := []byte(`# TYPE workqueue_adds_total counter
workqueue_adds_total{name="deployment"} 120
workqueue_adds_total{name="replicaset"} 7
# TYPE workqueue_retries_total counter
workqueue_retries_total{name="deployment"} 4
# TYPE workqueue_work_duration_seconds histogram
workqueue_work_duration_seconds_bucket{name="deployment",le="+Inf"} 100
workqueue_work_duration_seconds_sum{name="deployment"} 2.5
workqueue_work_duration_seconds_count{name="deployment"} 100
`)
	got, err := queueSummary(text, "deployment")
	if err != nil {
		t.Fatal(err)
	}
	want := "workqueue_adds_total: 120, workqueue_retries_total: 4, workqueue_work_duration_seconds: 100, mean 25.0ms"
	if got != want {
		t.Errorf("queueSummary = %q, want %q", got, want)
	}
	if _, err := queueSummary(text, "missing"); err == nil {
		t.Error("queueSummary of a queue without metrics succeeded")
	}
}

func TestGCSampleCountsCollections(t *testing.T) {
	before := readGC()
	runtime.GC()
	runtime.GC()
	got := readGC().since(before)
	if got.cycles < 2 {
		t.Errorf("cycles after two runtime.GC() = %d, want at least 2", got.cycles)
	}
	if got.gcCPU < 0 || got.assistCPU < 0 || got.pauseCPU < 0 {
		t.Errorf("negative CPU in %+v", got)
	}
	want := gcSample{cycles: 3, gcCPU: 1.5, assistCPU: 0.3, pauseCPU: 0.13}
	if s := want.String(); s != "3 GC cycles, GC CPU 1.5s (assists 0.3s, pauses 0.13s)" {
		t.Errorf("String() = %q", s)
	}
}

// Our controller's summary describes its queue as queueSummary describes
// kube-controller-manager's, after its reconciles by result.
func TestOurSummaryDescribesTheQueueAsUpstreams(t *testing.T) {
	reg := prometheus.NewRegistry()
	total := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "controller_runtime_reconcile_total"}, []string{"controller", "result"})
	adds := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "workqueue_adds_total"}, []string{"name"})
	work := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "workqueue_work_duration_seconds"}, []string{"name"})
	reg.MustRegister(total, adds, work)
	total.WithLabelValues("deployment", "success").Add(3)
	total.WithLabelValues("deployment", "error") // zero: left out
	adds.WithLabelValues("deployment").Add(4)
	work.WithLabelValues("deployment").Observe(0.01)
	work.WithLabelValues("deployment").Observe(0.03)

	got := (&runningController{registry: reg}).summary()
	want := "reconciles success: 3, workqueue_adds_total: 4, workqueue_work_duration_seconds: 2, mean 20.0ms"
	if got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}
