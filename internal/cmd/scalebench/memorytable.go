package main

import (
	"fmt"
	"strings"
)

// memoryTarget is a figure computed from a memory run.
type memoryTarget struct {
	figure
	value func(memoryResult) float64
}

// memoryTargets are issue 36's, for 1,000 Deployments × 10 replicas.
var memoryTargets = []memoryTarget{
	{figure{"heap_inuse, ours after the burst / kube-controller-manager's", 1, "×"}, func(m memoryResult) float64 {
		return ratio(m.burst.heapInuse, m.upstream.heapInuse)
	}},
	{figure{"heap_inuse, ours after the burst / ours restarted", 1.1, "×"}, func(m memoryResult) float64 {
		return ratio(m.burst.heapInuse, m.restart.heapInuse)
	}},
	{figure{"RSS (last), ours after the burst / kube-controller-manager's", 0.8, "×"}, func(m memoryResult) float64 {
		return ratio(float64(m.burst.rssLast), float64(m.upstream.rssLast))
	}},
}

// renderMemory is two markdown tables: each process's memory in every
// run with its median, and the targets' values per run with their median
// and bound.
func renderMemory(results []result) string {
	var b strings.Builder
	b.WriteString("| process | measure |")
	for i := range results {
		fmt.Fprintf(&b, " run %d |", i+1)
	}
	b.WriteString(" median |\n|---|---|" + strings.Repeat("---:|", len(results)+1) + "\n")
	processes := []struct {
		name   string
		sample func(memoryResult) memSample
	}{
		{"ours, after the burst", func(m memoryResult) memSample { return m.burst }},
		{"ours, restarted", func(m memoryResult) memSample { return m.restart }},
		{"kube-controller-manager, --controllers=deployment", func(m memoryResult) memSample { return m.upstream }},
	}
	measures := []struct {
		name  string
		value func(memSample) float64
	}{
		{"RSS first", func(s memSample) float64 { return float64(s.rssFirst) }},
		{"RSS last", func(s memSample) float64 { return float64(s.rssLast) }},
		{"heap_inuse", func(s memSample) float64 { return s.heapInuse }},
		{"heap_alloc (live)", func(s memSample) float64 { return s.heapAlloc }},
	}
	for _, p := range processes {
		for _, m := range measures {
			values := make([]float64, len(results))
			fmt.Fprintf(&b, "| %s | %s |", p.name, m.name)
			for i, r := range results {
				values[i] = m.value(p.sample(r.memory))
				fmt.Fprintf(&b, " %s |", mib(values[i]))
			}
			fmt.Fprintf(&b, " %s |\n", mib(median(values)))
		}
	}

	b.WriteString("\n| target |")
	for i := range results {
		fmt.Fprintf(&b, " run %d |", i+1)
	}
	b.WriteString(" median | bound | met |\n|---|" + strings.Repeat("---:|", len(results)+2) + "---|\n")
	for _, t := range memoryTargets {
		values := make([]float64, len(results))
		fmt.Fprintf(&b, "| %s |", t.name)
		for i, r := range results {
			values[i] = t.value(r.memory)
			fmt.Fprintf(&b, " %s |", t.format(values[i]))
		}
		m, met := median(values), "no"
		if m <= t.bound {
			met = "yes"
		}
		fmt.Fprintf(&b, " %s | ≤ %s | %s |\n", t.format(m), t.format(t.bound), met)
	}
	return b.String()
}
