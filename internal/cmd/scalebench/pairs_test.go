package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// finishedRun is a run of kind with the given phase times in seconds,
// status updates and failed ones, and other writes. Its controller used
// a tenth of the rollout's time in CPU-seconds and made 100 reads.
func finishedRun(kind controllerKind, create, rollout float64, status, failed, other int) result {
	phase := func(s float64) phaseResult {
		return phaseResult{elapsed: time.Duration(s * float64(time.Second)), available: 10, total: 10}
	}
	r := result{
		runSpec: runSpec{controller: kind}, deployments: 10, replicas: 3,
		create: phase(create), rollout: phase(rollout),
		apiWrites: writes{statusUpdate: status, {"POST", "replicasets"}: other},
		conflicts: writes{statusUpdate: failed}, reads: 100,
	}
	r.cpu.rollout = rollout / 10
	return r
}

func TestSummaryTakesTheMedianOfThePairs(t *testing.T) {
	results := []result{
		finishedRun(ours, 50, 90, 1000, 5, 900), finishedRun(upstream, 50, 100, 1200, 200, 900), // pair 1
		finishedRun(upstream, 60, 100, 1200, 200, 1000), finishedRun(ours, 66, 80, 1000, 20, 1000), // pair 2, other order
		finishedRun(ours, 55, 99, 1000, 0, 900), finishedRun(upstream, 50, 100, 1100, 100, 900), // pair 3
	}
	pairs := pairUp(results)
	if len(pairs) != 3 {
		t.Fatalf("%d pairs, want 3", len(pairs))
	}
	if pairs[1].ours.create.elapsed != 66*time.Second {
		t.Errorf("pair 2 ours is %+v, want the run of ours that came second", pairs[1].ours)
	}
	want := `| target | pair 1 | pair 2 | pair 3 | median | spread | bound | met |
|---|---:|---:|---:|---:|---:|---:|---|
| Deployment status updates refused with 409, of ours | 0.50% | 2.00% | 0.00% | 0.50% | 0.00%–2.00% | ≤ 1.00% | yes |
| total API writes, ours / upstream's | 0.90× | 0.91× | 0.95× | 0.91× | 0.90×–0.95× | ≤ 1.00× | yes |
| controller CPU-seconds over the rollout, ours / upstream's | 0.90× | 0.80× | 0.99× | 0.90× | 0.80×–0.99× | ≤ 0.80× | no |
| controller reads (GET requests), ours / upstream's | 1.00× | 1.00× | 1.00× | 1.00× | 1.00×–1.00× | — | — |
| rollout time, ours / upstream's | 0.90× | 0.80× | 0.99× | 0.90× | 0.80×–0.99× | — | — |
| create time, ours / upstream's | 1.00× | 1.10× | 1.10× | 1.10× | 1.00×–1.10× | — | — |
`
	if diff := cmp.Diff(want, renderTargets(pairs, targets)); diff != "" {
		t.Errorf("renderTargets (-want +got):\n%s", diff)
	}
}

func TestSummaryCountsAnUnfinishedPairAsMissed(t *testing.T) {
	timedOut := finishedRun(ours, 50, 90, 1000, 0, 900)
	timedOut.rollout.available = 3
	pairs := pairUp([]result{timedOut, finishedRun(upstream, 50, 100, 1000, 0, 900)})
	got := renderTargets(pairs, targets)
	want := "| controller CPU-seconds over the rollout, ours / upstream's | n/a | n/a | n/a | ≤ 0.80× | no |\n"
	if !slices.Contains(strings.SplitAfter(got, "\n"), want) {
		t.Errorf("summary of a timed-out pair:\n%s\nwant the line %q", got, want)
	}
}

func TestPairUpSkipsARunWithoutPartner(t *testing.T) {
	// Pair 1's upstream run failed, so ours is alone; pair 2 is whole.
	results := []result{finishedRun(ours, 1, 1, 1, 0, 1), finishedRun(ours, 3, 3, 3, 0, 3), finishedRun(upstream, 4, 4, 4, 0, 4)}
	pairs := pairUp(results)
	if len(pairs) != 1 || pairs[0].ours.create.elapsed != 3*time.Second {
		t.Errorf("pairs %+v, want one: the second ours with the last upstream", pairs)
	}
}

// A value that two decimals would print as its bound gets a third, so
// that "no" never stands beside a value that reads as the bound.
func TestFormatShowsWhichSideOfTheBound(t *testing.T) {
	f := figure{"create", 1, "×"}
	for v, want := range map[float64]string{1.003: "1.003×", 0.998: "0.998×", 1: "1.00×", 1.02: "1.02×", 0.5: "0.50×"} {
		if got := f.format(v); got != want {
			t.Errorf("format(%v) = %q, want %q", v, got, want)
		}
	}
	if got := (figure{"shown only", 0, "×"}).format(1.003); got != "1.00×" {
		t.Errorf("format without a bound = %q, want 1.00×", got)
	}
}

func TestCPUTargetMissesWhenASideMeasuredNothing(t *testing.T) {
	p := pair{ours: finishedRun(ours, 1, 10, 1, 0, 1), upstream: finishedRun(upstream, 1, 10, 1, 0, 1)}
	p.upstream.cpu.rollout = 0
	if got := renderTargets([]pair{p}, []target{cpuTarget(0.8)}); !strings.Contains(got, "| n/a | n/a | n/a | ≤ 0.80× | no |") {
		t.Errorf("a pair without upstream's CPU:\n%s\nwant n/a and missed", got)
	}
}
