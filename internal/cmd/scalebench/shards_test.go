package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ringRun is a finished run of a ring with the given rollout time in
// seconds and, per member, its keys and cached pods (and a tenth as many
// Deployments).
func ringRun(rollout float64, members ...[2]int) result {
	phase := func(s float64) phaseResult {
		return phaseResult{elapsed: time.Duration(s * float64(time.Second)), available: 100, total: 100}
	}
	r := result{runSpec: runSpec{controller: ours, members: len(members)}, deployments: 100, replicas: 3, create: phase(10), rollout: phase(rollout)}
	for i, m := range members {
		r.members = append(r.members, memberReport{
			name: fmt.Sprintf("controller-%d", i), rangeFraction: 1 / float64(len(members)), keys: m[0],
			cached: map[string]int{"deployments.apps": m[1] / 10, "pods": m[1]},
		})
	}
	return r
}

func TestRenderShardsMeasuresEachReplicaAgainstTheSingleOne(t *testing.T) {
	single := ringRun(100, [2]int{30, 3000})
	ring := ringRun(95, [2]int{10, 1000}, [2]int{9, 900}, [2]int{11, 1100})
	want := `| run | replica | share of the hash space | keys (namespaces) | cached, by resource | cached objects | of the single replica's |
|---|---|---:|---:|---|---:|---:|
| ring of 1 | controller-0 | 100.0% | 30 | deployments.apps: 300<br>pods: 3000 | 3300 | 100.0% |
| ring of 3 | controller-0 | 33.3% | 10 | deployments.apps: 100<br>pods: 1000 | 1100 | 33.3% |
| ring of 3 | controller-1 | 33.3% | 9 | deployments.apps: 90<br>pods: 900 | 990 | 30.0% |
| ring of 3 | controller-2 | 33.3% | 11 | deployments.apps: 110<br>pods: 1100 | 1210 | 36.7% |

Keys per replica in the ring of 3: 10, 9, 11; imbalance (largest / mean) 1.10×.

| target | measured | bound | met |
|---|---:|---:|---|
| largest replica's cached objects, of the single replica's | 36.67% | ≤ 40.00% | yes |
| rollout time, ring of n / ring of 1 | 0.95× | ≤ 1.00× | yes |
`
	if diff := cmp.Diff(want, renderShards([]result{single, ring})); diff != "" {
		t.Errorf("renderShards (-want +got):\n%s", diff)
	}
}

func TestRenderShardsMissesTargetsOutsideTheBounds(t *testing.T) {
	single := ringRun(100, [2]int{30, 3000})
	// One replica holds 41 % of the objects, and the ring is slower.
	ring := ringRun(101, [2]int{12, 1230}, [2]int{9, 900}, [2]int{9, 870})
	got := strings.SplitAfter(renderShards([]result{single, ring}), "\n")
	for _, line := range []string{
		"| largest replica's cached objects, of the single replica's | 41.00% | ≤ 40.00% | no |\n",
		"| rollout time, ring of n / ring of 1 | 1.01× | ≤ 1.00× | no |\n",
	} {
		if !slices.Contains(got, line) {
			t.Errorf("renderShards:\n%s\nwant the line %q", strings.Join(got, ""), line)
		}
	}
}

func TestRenderShardsCountsAnUnfinishedOrMissingRunAsMissed(t *testing.T) {
	single := ringRun(100, [2]int{30, 3000})
	ring := ringRun(50, [2]int{10, 1000}, [2]int{10, 1000}, [2]int{10, 1000})
	ring.rollout.available = 99 // timed out
	for name, results := range map[string][]result{
		"unfinished ring":   {single, ring},
		"no ring":           {single},
		"no single replica": {ringRun(50, [2]int{10, 1000}, [2]int{10, 1000})},
	} {
		got := strings.SplitAfter(renderShards(results), "\n")
		for _, line := range []string{
			"| largest replica's cached objects, of the single replica's | n/a | ≤ 40.00% | no |\n",
			"| rollout time, ring of n / ring of 1 | n/a | ≤ 1.00× | no |\n",
		} {
			if !slices.Contains(got, line) {
				t.Errorf("%s: renderShards:\n%s\nwant the line %q", name, strings.Join(got, ""), line)
			}
		}
	}
}

func TestImbalance(t *testing.T) {
	members := func(keys ...int) []memberReport {
		var out []memberReport
		for _, k := range keys {
			out = append(out, memberReport{keys: k})
		}
		return out
	}
	for _, tc := range []struct {
		keys []int
		want float64
	}{
		{[]int{100, 100, 100}, 1},
		{[]int{10, 290, 0}, 2.9},
		{[]int{300, 0, 0}, 3},
		{[]int{0, 0}, 0}, // nothing to split
	} {
		if got := imbalance(members(tc.keys...)); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("imbalance(%v) = %v, want %v", tc.keys, got, tc.want)
		}
	}
}
