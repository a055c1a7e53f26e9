package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestParseFlagsNeighbours(t *testing.T) {
	cfg, err := parseFlags([]string{"neighbours", "-pairs", "2", "-load"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	o, u, f := runSpec{controller: ours}, runSpec{controller: upstream}, runSpec{controller: ours, fifo: true}
	want := []runSpec{o, u, f, u, f, o}
	if diff := cmp.Diff(want, cfg.runs(), cmp.AllowUnexported(runSpec{})); diff != "" {
		t.Errorf("neighbours' runs: groups of three, each in another order (-want +got):\n%s", diff)
	}
	if cfg.deployments != 300 || cfg.replicas != 1 || cfg.quiet != 20 || !cfg.load || cfg.groupSize() != 3 {
		t.Errorf("neighbours: %+v; want 300 × 1, 20 quiet, -load, groups of 3", cfg)
	}
	if got := cfg.namespaceNames(); !cmp.Equal(got, []string{"busy", "quiet"}) || cfg.namespaceOf(7) != "busy" {
		t.Errorf("namespaces %v, the 8th Deployment's %s; want [busy quiet], busy", got, cfg.namespaceOf(7))
	}
	if args := strings.Join(cfg.commonArgs(), " "); !strings.Contains(args, "--kube-api-qps=20 --kube-api-burst=30") {
		t.Errorf("neighbours' controllers run with %s, want kube-controller-manager's default client limit", args)
	}
	if f.String() != "ours without lanes" {
		t.Errorf("fifo run is called %q", f)
	}
	if _, err := parseFlags([]string{"neighbours", "-quiet", "0"}, io.Discard); err == nil || !strings.Contains(err.Error(), "-quiet must be at least 1") {
		t.Errorf("-quiet 0: %v", err)
	}
}

func TestQuietTrackerTimesEachDeployment(t *testing.T) {
	q := newQuietTracker()
	q.first(q.created, "quiet-00")
	q.first(q.created, "quiet-01")
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: quietNamespace, Name: "quiet-00-abc",
		OwnerReferences: []metav1.OwnerReference{{Kind: "Deployment", Name: "quiet-00", Controller: ptr.To(true)}}}}
	q.observeReplicaSet(rs)
	busyRS := rs.DeepCopy()
	busyRS.Namespace = busyNamespace
	busyRS.OwnerReferences[0].Name = "quiet-01"
	q.observeReplicaSet(busyRS) // another namespace's: not quiet-01's
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: quietNamespace, Name: "quiet-00", Generation: 1},
		Spec:   appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 1, UpdatedReplicas: 1, AvailableReplicas: 1}}
	d.Spec.Template.Spec.Containers = []corev1.Container{{Name: "app", Image: imageV1}}
	q.observeDeployment(d)

	done := make(chan error, 1)
	done <- nil
	res, err := q.wait(t.Context(), done, 1, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.toReplicaSet) != 1 || len(res.toAvailable) != 1 || res.missing != 1 {
		t.Errorf("%+v: want quiet-00 timed and quiet-01 missing", res)
	}
}

func TestPercentile(t *testing.T) {
	ds := []time.Duration{4 * time.Second, time.Second, 3 * time.Second, 2 * time.Second}
	for p, want := range map[float64]float64{50: 2, 90: 4, 100: 4, 25: 1} {
		if got := percentile(ds, 0, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if got := times(ds, 1); got != "n/a / n/a / n/a (1 missing)" {
		t.Errorf("with one missing: %q", got)
	}
}

func TestNeighbourTargets(t *testing.T) {
	quiet := func(kind controllerKind, fifo bool, group int, toRS float64, rollout float64) result {
		r := finishedRun(kind, 10, rollout, 1, 0, 1)
		r.fifo, r.group = fifo, group
		for i := range 10 {
			d := time.Duration(toRS * float64(i+1) / 10 * float64(time.Second))
			r.quiet.toReplicaSet = append(r.quiet.toReplicaSet, d)
			r.quiet.toAvailable = append(r.quiet.toAvailable, d+time.Second)
		}
		return r
	}
	results := []result{
		quiet(ours, false, 0, 1, 100), quiet(upstream, false, 0, 40, 110), quiet(ours, true, 0, 45, 100),
		quiet(upstream, false, 1, 50, 100), // its group's other runs failed: left out
	}
	gs := groups(results)
	if len(gs) != 1 || gs[0].fifo.rollout.elapsed != 100*time.Second || gs[0].upstream.rollout.elapsed != 110*time.Second {
		t.Fatalf("groups %+v: want one whole group", gs)
	}
	got := renderTargets(gs, neighbourTargets)
	for _, line := range []string{
		"| quiet Deployments' p90 create→ReplicaSet, ours / upstream's | 0.03× | 0.03× | 0.03×–0.03× | ≤ 0.10× | yes |",
		"| busy rollout time, ours / ours without lanes | 1.00× | 1.00× | 1.00×–1.00× | ≤ 1.05× | yes |",
		"| busy rollout time, ours / upstream's | 0.91× | 0.91× | 0.91×–0.91× | — | — |",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("targets:\n%s\nwant the line %s", got, line)
		}
	}
	if table := renderQuiet(results[:1]); !strings.Contains(table, "| 1 | ours | 0.50 / 0.90 / 1.00 | 1.50 / 1.90 / 2.00 | 100.0 |") {
		t.Errorf("renderQuiet:\n%s", table)
	}
}
