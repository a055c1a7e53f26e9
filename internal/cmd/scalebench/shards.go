package main

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// shardTarget is one of issue 15's figures: a value computed from the
// ring of one and the ring of n, and the bound it must stay within.
type shardTarget struct {
	figure
	value func(single, ring result) float64
}

// shardTargets are issue 15's, for 1,000 Deployments × 3 replicas over
// 300 namespaces on 3 replicas.
var shardTargets = []shardTarget{
	{figure{"largest replica's cached objects, of the single replica's", 40, "%"}, func(single, ring result) float64 {
		largest := 0
		for _, m := range ring.members {
			largest = max(largest, m.cachedTotal())
		}
		return 100 * ratio(largest, single.members[0].cachedTotal())
	}},
	{figure{"rollout time, ring of n / ring of 1", 1, "×"}, func(single, ring result) float64 {
		return ratio(ring.rollout.elapsed.Seconds(), single.rollout.elapsed.Seconds())
	}},
}

// renderShards reports the ring runs: each replica's cache against the
// single replica's, how the keys split, and the targets.
func renderShards(results []result) string {
	var single, ring *result
	for i := range results {
		switch r := &results[i]; {
		case len(r.members) == 0:
		case r.runSpec.members == 1:
			single = r
		default:
			ring = r
		}
	}
	var b strings.Builder
	b.WriteString("| run | replica | share of the hash space | keys (namespaces) | cached, by resource | cached objects | of the single replica's |\n")
	b.WriteString("|---|---|---:|---:|---|---:|---:|\n")
	for _, run := range []*result{single, ring} {
		if run == nil {
			continue
		}
		for _, m := range run.members {
			share := "n/a"
			if single != nil {
				share = fmt.Sprintf("%.1f%%", 100*ratio(m.cachedTotal(), single.members[0].cachedTotal()))
			}
			var cached []string
			for _, resource := range slices.Sorted(maps.Keys(m.cached)) {
				cached = append(cached, fmt.Sprintf("%s: %d", resource, m.cached[resource]))
			}
			fmt.Fprintf(&b, "| %s | %s | %.1f%% | %d | %s | %d | %s |\n", run.runSpec, m.name,
				100*m.rangeFraction, m.keys, strings.Join(cached, "<br>"), m.cachedTotal(), share)
		}
	}
	if ring != nil {
		keys := make([]string, len(ring.members))
		for i, m := range ring.members {
			keys[i] = fmt.Sprint(m.keys)
		}
		fmt.Fprintf(&b, "\nKeys per replica in the %s: %s; imbalance (largest / mean) %.2f×.\n",
			ring.runSpec, strings.Join(keys, ", "), imbalance(ring.members))
	}
	b.WriteString("\n| target | measured | bound | met |\n|---|---:|---:|---|\n")
	for _, t := range shardTargets {
		v := math.Inf(1) // a missing or unfinished run: outside every bound
		if single != nil && ring != nil && single.rollout.done() && ring.rollout.done() {
			v = t.value(*single, *ring)
		}
		met := "no"
		if v <= t.bound {
			met = "yes"
		}
		fmt.Fprintf(&b, "| %s | %s | ≤ %s | %s |\n", t.name, t.format(v), t.format(t.bound), met)
	}
	return b.String()
}

// imbalance is the largest member's keys over the mean: 1 when they split
// evenly, n when one of n has them all.
func imbalance(members []memberReport) float64 {
	largest, sum := 0, 0
	for _, m := range members {
		largest, sum = max(largest, m.keys), sum+m.keys
	}
	return ratio(float64(largest*len(members)), float64(sum))
}
