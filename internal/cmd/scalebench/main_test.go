package main

import (
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// These tests need no cluster: the benchmark itself is run by hand (see
// RESULTS.md).

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"pairs"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := []runSpec{{controller: ours}, {controller: upstream}, {controller: upstream}, {controller: ours}, {controller: ours}, {controller: upstream}}
	if diff := cmp.Diff(want, cfg.runs(), cmp.AllowUnexported(runSpec{})); diff != "" {
		t.Errorf("pairs' runs: 1000 × 3, three pairs alternating (-want +got):\n%s", diff)
	}
	// 1000 Deployments of 3 (+1 surge) pods, twice over, 1000 pods a node.
	if cfg.deployments != 1000 || cfg.replicas != 3 || cfg.nodeCount() != 8 || cfg.namespaceOf(999) != "ns-0" {
		t.Errorf("pairs: N %d, R %d, %d nodes, namespace %s; want 1000, 3, 8, ns-0", cfg.deployments, cfg.replicas, cfg.nodeCount(), cfg.namespaceOf(999))
	}
	cfg, err = parseFlags(strings.Fields("shards -n 30 -r 1 -namespaces 10 -replicas 2 -dir /tmp/x"), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want = []runSpec{{controller: ours, members: 1}, {controller: ours, members: 2}}
	if diff := cmp.Diff(want, cfg.runs(), cmp.AllowUnexported(runSpec{})); diff != "" {
		t.Errorf("shards' runs (-want +got):\n%s", diff)
	}
	if cfg.namespaceOf(13) != "ns-3" || cfg.nodeCount() != 1 || cfg.runDir(1, want[1]) != "/tmp/x/02-ring-of-2" {
		t.Errorf("shards: namespace %s, %d nodes, dir %s; want ns-3, 1, /tmp/x/02-ring-of-2", cfg.namespaceOf(13), cfg.nodeCount(), cfg.runDir(1, want[1]))
	}
}

func TestParseFlagsRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args string
		want []string // substrings of the error
	}{
		{"", []string{"the first argument must be pairs, shards, memory or neighbours"}},
		{"-n 10", []string{"the first argument must be pairs, shards, memory or neighbours"}},
		{"pairs -n 0 -r -1 -pairs 0", []string{"-n must be at least 1, got 0", "-r must be at least 1, got -1", "-pairs must be at least 1"}},
		{"shards -replicas 1 -namespaces 0", []string{"-replicas must be at least 2", "-namespaces must be at least 1"}},
		{"pairs -replicas 3", []string{"flag provided but not defined: -replicas"}},
		{"shards -n many", []string{`invalid value "many" for flag -n`}},
		{"pairs extra", []string{`unexpected arguments ["extra"]`}},
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

func TestRenderRuns(t *testing.T) {
	results := []result{
		{
			runSpec: runSpec{controller: ours}, deployments: 20, replicas: 3,
			create:    phaseResult{elapsed: 2340 * time.Millisecond, available: 20, total: 20},
			rollout:   phaseResult{elapsed: 7 * time.Second, available: 20, total: 20},
			apiWrites: writes{{"PUT", "deployments/status"}: 60, {"POST", "replicasets"}: 40},
			conflicts: writes{{"PUT", "deployments/status"}: 4},
			events:    140, reconciles: 95,
		},
		{
			runSpec: runSpec{controller: ours, members: 3}, deployments: 20, replicas: 3,
			create: phaseResult{elapsed: 20 * time.Minute, available: 7, total: 20}, reconciles: -1,
		},
	}
	results[0].cpu.create, results[0].cpu.rollout, results[0].reads = 1.25, 3.5, 42
	want := `| # | run | N | R | create→available (s) | rollout→available (s) | controller CPU-s: create / rollout | controller reads | reconciles | Deployment controller writes | of which 409 | event writes | total writes |
|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|
| 1 | ours | 20 | 3 | 2.3 | 7.0 | 1.2 / 3.5 | 42 | 95 | PUT deployments/status: 60<br>POST replicasets: 40 | PUT deployments/status: 4 | 140 | 240 |
| 2 | ring of 3 | 20 | 3 | timed out after 1200 (7/20 available) | not run | 0.0 / 0.0 | 0 | n/a | none | none | 0 | 0 |
`
	if diff := cmp.Diff(want, renderRuns(results)); diff != "" {
		t.Errorf("renderRuns (-want +got):\n%s", diff)
	}
}

func TestParseWrites(t *testing.T) {
	text := `# HELP apiserver_request_total Counter of apiserver requests.
# TYPE apiserver_request_total counter
apiserver_request_total{code="201",component="apiserver",dry_run="",group="apps",resource="replicasets",scope="resource",subresource="",verb="POST",version="v1"} 12
apiserver_request_total{code="409",component="apiserver",dry_run="",group="apps",resource="replicasets",scope="resource",subresource="",verb="POST",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 7
apiserver_request_total{code="409",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 2
apiserver_request_total{code="422",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="status",verb="PUT",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="apps",resource="deployments",scope="namespace",subresource="",verb="LIST",version="v1"} 99
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/healthz",verb="GET",version=""} 5
# TYPE apiserver_other counter
apiserver_other 1
`
	got, err := parseWrites([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	status := writeKey{"PUT", "deployments/status"}
	want := serverWrites{
		all:       writes{{"POST", "replicasets"}: 15, status: 10},
		conflicts: writes{{"POST", "replicasets"}: 3, status: 2}, // 409 only, not the 422
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(serverWrites{})); diff != "" {
		t.Errorf("parseWrites (-want +got):\n%s", diff)
	}
	// Deltas between two scrapes drop what did not change.
	earlier := serverWrites{all: writes{{"POST", "replicasets"}: 10, status: 10}, conflicts: writes{status: 1}}
	want = serverWrites{all: writes{{"POST", "replicasets"}: 5}, conflicts: writes{{"POST", "replicasets"}: 3, status: 1}}
	if diff := cmp.Diff(want, got.minus(earlier), cmp.AllowUnexported(serverWrites{})); diff != "" {
		t.Errorf("minus (-want +got):\n%s", diff)
	}
	if _, err := parseWrites([]byte("apiserver_other 1\n")); err == nil || !strings.Contains(err.Error(), "no apiserver_request_total") {
		t.Errorf("parseWrites without the metric: err = %v", err)
	}
	if _, err := parseWrites([]byte("not {metrics\n")); err == nil {
		t.Error("parseWrites of garbage succeeded")
	}
}

// Of the API server's writes, only a Deployment controller's count:
// anything on Deployments, ReplicaSets but not their status.
func TestWritesAttribution(t *testing.T) {
	for _, tc := range []struct {
		verb, resource, subresource string
		want                        bool
	}{
		{"PUT", "deployments", "status", true},
		{"POST", "replicasets", "", true},
		{"DELETE", "replicasets", "", true},
		{"APPLY", "deployments", "", true},
		{"PATCH", "deployments", "scale", true},
		{"PUT", "replicasets", "status", false},
		{"POST", "pods", "", false},
		{"POST", "events", "", false},
		{"GET", "deployments", "", false},
		{"WATCH", "replicasets", "", false},
		{"PUT", "deploymentsfoo", "", false}, // the match is on the whole resource name
	} {
		if got := byDeploymentController(tc.verb, tc.resource, tc.subresource); got != tc.want {
			t.Errorf("byDeploymentController(%s %s/%s) = %t, want %t", tc.verb, tc.resource, tc.subresource, got, tc.want)
		}
	}
	w := writes{{"PUT", "deployments/status"}: 50, {"POST", "replicasets"}: 40, {"POST", "deployments"}: 20}
	if got := w.minus(writes{{"POST", "deployments"}: 20}); got.total() != 90 || len(got) != 2 {
		t.Errorf("minus the benchmark's creates = %v, want 90 writes of 2 kinds", got)
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

func TestTrackerSpreadIsOverTheDeploymentsCountedSoFar(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := newTracker()
		tr.startPhase(imageV2)
		began := time.Now()
		if p50, p90, last := tr.spread(began); p50 != 0 || p90 != 0 || last != 0 {
			t.Fatalf("spread() of nothing = %v, %v, %v; want zeros", p50, p90, last)
		}
		for i := range 10 { // the i-th becomes available i+1 seconds in
			time.Sleep(time.Second)
			tr.observe(&appsv1.Deployment{
				ObjectMeta: metav1.ObjectMeta{Name: deploymentName(i), Generation: 2},
				Spec: appsv1.DeploymentSpec{
					Replicas: ptr.To[int32](1),
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Image: imageV2}}}},
				},
				Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1},
			})
		}
		p50, p90, last := tr.spread(began)
		if p50 != 5*time.Second || p90 != 9*time.Second || last != 10*time.Second {
			t.Errorf("spread() = %v, %v, %v; want 5s, 9s, 10s", p50, p90, last)
		}
	})
}
