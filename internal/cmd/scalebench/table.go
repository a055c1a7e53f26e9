package main

import (
	"fmt"
	"strings"
)

// renderTable formats results as a markdown table, one row per controller.
func renderTable(results []result) string {
	var b strings.Builder
	b.WriteString("| controller | N | R | create→available (s) | rollout→available (s) | Deployment controller writes (kube-apiserver metrics) | of which failed | event writes | total writes | writes sent by our client |\n")
	b.WriteString("|---|---:|---:|---:|---:|---|---|---:|---:|---|\n")
	for _, r := range results {
		client := "n/a"
		if r.clientWrites != nil {
			client = fmt.Sprintf("%d: %s", r.clientWrites.total(), cell(r.clientWrites))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %s | %d | %d | %s |\n",
			r.label(), r.deployments, r.replicas, r.create, r.rollout,
			cell(r.apiWrites), cell(r.apiFailed), r.events, r.apiWrites.total()+r.events, client)
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
