package main

import (
	"fmt"
	"strings"
)

// renderRuns formats results as a markdown table, one row per run, in
// run order.
func renderRuns(results []result) string {
	var b strings.Builder
	b.WriteString("| # | run | N | R | create→available (s) | rollout→available (s) | controller CPU-s: create / rollout | controller reads | reconciles | Deployment controller writes | of which 409 | event writes | total writes |\n")
	b.WriteString("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|\n")
	for i, r := range results {
		reconciles := "n/a"
		if r.reconciles >= 0 {
			reconciles = fmt.Sprint(r.reconciles)
		}
		fmt.Fprintf(&b, "| %d | %s | %d | %d | %s | %s | %.1f / %.1f | %d | %s | %s | %s | %d | %d |\n",
			i+1, r.runSpec, r.deployments, r.replicas, r.create, r.rollout, r.cpu.create, r.cpu.rollout, r.reads, reconciles,
			cell(r.apiWrites), cell(r.conflicts), r.events, r.totalWrites())
	}
	return b.String()
}

// cell lists write counts on separate lines of one table cell.
func cell(w writes) string {
	if len(w) == 0 {
		return "none"
	}
	return w.join("<br>")
}

// String is the phase's time in seconds, or how far it got before timing
// out, or "not run" for a phase that never started.
func (p phaseResult) String() string {
	switch {
	case p.total == 0:
		return "not run"
	case p.available < p.total:
		return fmt.Sprintf("timed out after %.0f (%d/%d available)", p.elapsed.Seconds(), p.available, p.total)
	default:
		return fmt.Sprintf("%.1f", p.elapsed.Seconds())
	}
}
