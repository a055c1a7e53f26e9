package main

import (
	"fmt"
	"strings"
)

// memoryTargets are issue 36's, for 1,000 Deployments × 10 replicas, with
// kube-controller-manager started on the objects (as the issue measured
// it); then the same two ratios of kube-controller-manager after a burst
// of its own, for comparison.
var memoryTargets = []target{
	{figure{"heap_inuse, ours after the burst / kube-controller-manager's restarted", 1, "×"}, func(p pair) float64 {
		return ratio(p.ours.memory.burst.heapInuse, p.upstream.memory.restart.heapInuse)
	}},
	{figure{"heap_inuse, ours after the burst / ours restarted", 1.1, "×"}, func(p pair) float64 {
		return ratio(p.ours.memory.burst.heapInuse, p.ours.memory.restart.heapInuse)
	}},
	{figure{"RSS (last), ours after the burst / kube-controller-manager's restarted", 0.8, "×"}, func(p pair) float64 {
		return ratio(p.ours.memory.burst.rssLast, p.upstream.memory.restart.rssLast)
	}},
	{figure{"heap_inuse, kube-controller-manager's after the burst / restarted", 0, "×"}, func(p pair) float64 {
		return ratio(p.upstream.memory.burst.heapInuse, p.upstream.memory.restart.heapInuse)
	}},
	{figure{"heap_inuse, ours after the burst / kube-controller-manager's after the burst", 0, "×"}, func(p pair) float64 {
		return ratio(p.ours.memory.burst.heapInuse, p.upstream.memory.burst.heapInuse)
	}},
}

// renderMemory is two markdown tables: each process's memory in every
// pair of runs with its median, and the memory targets (renderTargets).
func renderMemory(pairs []pair) string {
	var b strings.Builder
	b.WriteString("| process | measure |")
	for i := range pairs {
		fmt.Fprintf(&b, " pair %d |", i+1)
	}
	b.WriteString(" median |\n|---|---|" + strings.Repeat("---:|", len(pairs)+1) + "\n")
	processes := []struct {
		name   string
		sample func(pair) memSample
	}{
		{"ours, after the burst", func(p pair) memSample { return p.ours.memory.burst }},
		{"ours, restarted", func(p pair) memSample { return p.ours.memory.restart }},
		{"kube-controller-manager, after the burst", func(p pair) memSample { return p.upstream.memory.burst }},
		{"kube-controller-manager, restarted", func(p pair) memSample { return p.upstream.memory.restart }},
	}
	measures := []struct {
		name  string
		value func(memSample) float64
	}{
		{"RSS first", func(s memSample) float64 { return s.rssFirst }},
		{"RSS last", func(s memSample) float64 { return s.rssLast }},
		{"heap_inuse", func(s memSample) float64 { return s.heapInuse }},
		{"heap_alloc (live)", func(s memSample) float64 { return s.heapAlloc }},
	}
	for _, proc := range processes {
		for _, m := range measures {
			values := make([]float64, len(pairs))
			fmt.Fprintf(&b, "| %s | %s |", proc.name, m.name)
			for i, p := range pairs {
				values[i] = m.value(proc.sample(p))
				fmt.Fprintf(&b, " %s |", mib(values[i]))
			}
			fmt.Fprintf(&b, " %s |\n", mib(median(values)))
		}
	}

	return b.String() + "\n" + renderTargets(pairs, memoryTargets)
}
