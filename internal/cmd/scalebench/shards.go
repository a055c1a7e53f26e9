package main

import (
	"fmt"
	"math"
	"strings"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// shardTarget is one of issue 15's figures for -shards: a value computed
// from the ring of one and the ring of n, and the bound it must stay within.
type shardTarget struct {
	name  string
	value func(single, ring result) float64
	bound float64
	unit  string // "%" or "×", as target's
}

// shardTargets are issue 15's, for 1,000 Deployments × 3 replicas over
// 300 namespaces on 3 replicas.
var shardTargets = []shardTarget{
	{name: "largest sharded replica's cached objects, of the single replica's", value: func(single, ring result) float64 {
		largest := 0
		for _, r := range ring.replicaReports {
			largest = max(largest, r.cachedTotal())
		}
		return 100 * ratio(largest, single.replicaReports[0].cachedTotal())
	}, bound: 40, unit: "%"},
	{name: "rollout time, ring of n / ring of 1", value: func(single, ring result) float64 {
		return ratio(ring.rollout.elapsed.Seconds(), single.rollout.elapsed.Seconds())
	}, bound: 1, unit: "×"},
}

// shardsNote says what the comparison can and cannot show on this machine.
const shardsNote = `On a machine of few cores (this one has %d), the control plane, every replica and the
benchmark share them: n replicas cannot roll out n times faster. What the sharded run shows
is each replica's share: its cached objects, heap, and list and watch bytes fall to the share
of the hash space its namespaces hold (above; heap less so: each process has a fixed part).
Lists are small because the replicas list before the Deployments exist; the objects arrive
by watch. The rollout time is bound by API server latency, by the workers of each replica
(-workers each, so n times as many in all) and by kube-scheduler's 50 QPS for the pods, so
the target only asks that the ring is no slower.
`

// renderShards reports the sharded runs: each replica's measurements
// against the single replica's, the targets, and what they show. cores is
// the machine's (runtime.NumCPU).
func renderShards(results []result, namespaces, cores int) string {
	var single, ring *result
	for i := range results {
		r := &results[i]
		switch {
		case r.controller != sharded || len(r.replicaReports) == 0:
		case r.replicaCount == 1:
			single = r
		default:
			ring = r
		}
	}
	var b strings.Builder
	b.WriteString("| run | replica | hash range | Deployments | ReplicaSets | Pods | cached objects | of 1 replica's | heap in use (MiB) | of 1 replica's | list (KiB) | watch (KiB) | list + watch, of 1 replica's |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, run := range []*result{single, ring} {
		if run == nil {
			continue
		}
		for _, r := range run.replicaReports {
			share := func(f func(replicaReport) float64) string {
				if single == nil {
					return "n/a"
				}
				return fmt.Sprintf("%.1f%%", 100*ratio(f(r), f(single.replicaReports[0])))
			}
			cached := func(r replicaReport) float64 { return float64(r.cachedTotal()) }
			heap := func(r replicaReport) float64 { return float64(r.HeapInuse) }
			bytes := func(r replicaReport) float64 { return float64(r.ListBytes + r.WatchBytes) }
			fmt.Fprintf(&b, "| %s | %s | %.1f%% | %d | %d | %d | %d | %s | %.1f | %s | %.0f | %.0f | %s |\n",
				run.label(), r.ID, 100*r.RangeFraction, r.Cached["deployments"], r.Cached["replicasets"], r.Cached["pods"],
				r.cachedTotal(), share(cached), mib(r.HeapInuse), share(heap), float64(r.ListBytes)/1024, float64(r.WatchBytes)/1024, share(bytes))
		}
	}
	if ring != nil {
		fmt.Fprintf(&b, "\nDeployments in each of the %d hash ranges (by the hashes of their %d namespaces): %s\n",
			ring.replicaCount, namespaces, strings.Join(expectedSplit(ring.deployments, namespaces, ring.replicaCount), ", "))
	}
	b.WriteString("\n| target | measured | bound | met |\n|---|---:|---:|---|\n")
	for _, t := range shardTargets {
		v := math.Inf(1) // a missing or unfinished run: outside every bound
		if single != nil && ring != nil && phasesDone(*single) && phasesDone(*ring) {
			v = t.value(*single, *ring)
		}
		met := "not met"
		if v <= t.bound {
			met = "met"
		}
		f := target{unit: t.unit}
		fmt.Fprintf(&b, "| %s | %s | ≤ %s | %s |\n", t.name, f.format(v), f.format(t.bound), met)
	}
	fmt.Fprintf(&b, "\n"+shardsNote, cores)
	return b.String()
}

// phasesDone reports whether the run finished both phases.
func phasesDone(r result) bool {
	return r.create.total > 0 && r.create.available == r.create.total &&
		r.rollout.total > 0 && r.rollout.available == r.rollout.total
}

// expectedSplit is how many of n Deployments, spread round-robin over
// namespaces (see config.namespaceOf), fall in each of the ring's ranges:
// the share of each replica before anything is measured. A namespace is
// never split, so with few namespaces the shares are uneven.
func expectedSplit(n, namespaces, members int) []string {
	cfg := config{namespaces: namespaces}
	ranges := sharding.Assign(members)
	counts := make([]int, members)
	for i := range n {
		h := sharding.KeyHash(cfg.namespaceOf(i), "")
		for j, r := range ranges {
			if r.Contains(h) {
				counts[j]++
			}
		}
	}
	out := make([]string, members)
	for j, c := range counts {
		out[j] = fmt.Sprintf("%d (%.1f%%)", c, 100*ratio(c, n))
	}
	return out
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }
