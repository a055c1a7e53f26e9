package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// runOrder is the order of the runs: each chosen controller once, or, with
// -pairs, both controllers pairs times, ours first in odd pairs and
// upstream first in even ones, so that neither always runs on a machine
// warmed (or tired) by the other.
func (c config) runOrder() []controllerKind {
	if c.pairs <= 1 || len(c.controllers) != 2 {
		return c.controllers
	}
	var order []controllerKind
	for i := range c.pairs {
		if i%2 == 0 {
			order = append(order, ours, upstream)
		} else {
			order = append(order, upstream, ours)
		}
	}
	return order
}

// pair is one run of each controller.
type pair struct{ ours, upstream result }

// pairUp groups results, in run order, into pairs; a run whose partner
// failed is left out.
func pairUp(results []result) []pair {
	var pairs []pair
	var pending []result
	for _, r := range results {
		if len(pending) == 1 && pending[0].controller != r.controller {
			p := pair{ours: pending[0], upstream: r}
			if r.controller == ours {
				p = pair{ours: r, upstream: pending[0]}
			}
			pairs = append(pairs, p)
			pending = nil
			continue
		}
		pending = []result{r}
	}
	return pairs
}

// target is one of the promised figures: a value computed from a pair, and
// the bound it must stay within.
type target struct {
	name  string
	value func(pair) float64
	bound float64
	unit  string // "%" or "×"
}

// targets are issue 14's, for 1,000 Deployments × 3 replicas.
var targets = []target{
	{name: "failed Deployment status updates, of ours", value: failedStatusShare, bound: 1, unit: "%"},
	{name: "total API writes, ours / upstream's", value: func(p pair) float64 {
		return ratio(p.ours.totalWrites(), p.upstream.totalWrites())
	}, bound: 0.95, unit: "×"},
	{name: "rollout time, ours / upstream's", value: func(p pair) float64 {
		return ratio(p.ours.rollout.elapsed.Seconds(), p.upstream.rollout.elapsed.Seconds())
	}, bound: 0.9, unit: "×"},
	{name: "create time, ours / upstream's", value: func(p pair) float64 {
		return ratio(p.ours.create.elapsed.Seconds(), p.upstream.create.elapsed.Seconds())
	}, bound: 1, unit: "×"},
}

var statusUpdate = writeKey{Verb: "PUT", Resource: "deployments/status"}

// failedStatusShare is the percentage of our Deployment status updates
// that the API server refused.
func failedStatusShare(p pair) float64 {
	return 100 * ratio(float64(p.ours.apiFailed[statusUpdate]), float64(p.ours.apiWrites[statusUpdate]))
}

// totalWrites are the Deployment controller's writes, events included.
func (r result) totalWrites() float64 { return float64(r.apiWrites.total() + r.events) }

func ratio[T int | float64](a, b T) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// renderSummary is a markdown table of each target: its value in every
// pair, the median over the pairs, the bound, and whether the median meets
// it. A pair whose phases did not all finish counts as missing the target.
func renderSummary(pairs []pair) string {
	var b strings.Builder
	b.WriteString("| target |")
	for i := range pairs {
		fmt.Fprintf(&b, " pair %d |", i+1)
	}
	b.WriteString(" median | bound | met |\n|---|")
	b.WriteString(strings.Repeat("---:|", len(pairs)+2) + "---|\n")
	for _, t := range targets {
		values := make([]float64, 0, len(pairs))
		fmt.Fprintf(&b, "| %s |", t.name)
		for _, p := range pairs {
			v := math.Inf(1) // unfinished: outside every bound
			if p.finished() {
				v = t.value(p)
			}
			values = append(values, v)
			fmt.Fprintf(&b, " %s |", t.format(v))
		}
		m := median(values)
		met := "no"
		if len(values) > 0 && m <= t.bound {
			met = "yes"
		}
		fmt.Fprintf(&b, " %s | ≤ %s | %s |\n", t.format(m), t.format(t.bound), met)
	}
	return b.String()
}

// format prints v in t's unit; an infinite v (a pair that did not finish)
// as n/a.
func (t target) format(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "n/a"
	}
	if t.unit == "%" {
		return fmt.Sprintf("%.2f%%", v)
	}
	return fmt.Sprintf("%.2f×", v)
}

// finished reports whether both runs of the pair finished both phases.
func (p pair) finished() bool {
	for _, r := range []result{p.ours, p.upstream} {
		if r.create.available < r.create.total || r.rollout.available < r.rollout.total || r.rollout.total == 0 {
			return false
		}
	}
	return true
}

// median of values; the mean of the middle two for an even count.
func median(values []float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	s := slices.Sorted(slices.Values(values))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
