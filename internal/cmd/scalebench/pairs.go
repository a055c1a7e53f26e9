package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// pair is one run of each controller; in the neighbours mode also one of
// ours without namespace lanes (fifo).
type pair struct{ ours, upstream, fifo result }

// finished reports whether every run of p finished its phases.
func (p pair) finished() bool {
	return p.ours.finished() && p.upstream.finished() && (p.fifo.deployments == 0 || p.fifo.finished())
}

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

// figure is a promised figure: its name, and the bound its value must
// stay within (0: a figure shown for comparison only), in its unit ("%"
// or "×").
type figure struct {
	name  string
	bound float64
	unit  string
}

// target is a figure computed from a pair.
type target struct {
	figure
	value func(pair) float64
}

// targets are issues 31's and 48's, for 1,000 Deployments × 3 replicas.
// The rollout and create times are shown, not bound: on two cores they
// measure the machine more than either controller (issue 48).
var targets = []target{
	{figure{"Deployment status updates refused with 409, of ours", 1, "%"}, conflictShare},
	{figure{"total API writes, ours / upstream's", 1, "×"}, func(p pair) float64 {
		return ratio(p.ours.totalWrites(), p.upstream.totalWrites())
	}},
	cpuTarget(0.8),
	{figure{"controller reads (GET requests), ours / upstream's", 0, "×"}, func(p pair) float64 {
		return ratio(p.ours.reads, p.upstream.reads)
	}},
	{figure{"rollout time, ours / upstream's", 0, "×"}, func(p pair) float64 {
		return ratio(p.ours.rollout.elapsed.Seconds(), p.upstream.rollout.elapsed.Seconds())
	}},
	{figure{"create time, ours / upstream's", 0, "×"}, func(p pair) float64 {
		return ratio(p.ours.create.elapsed.Seconds(), p.upstream.create.elapsed.Seconds())
	}},
}

// cpuTarget is the Deployment controller processes' CPU-seconds over the
// rollout, ours / upstream's, within bound (0: shown only). A side that
// measured none did not measure: that misses the bound.
func cpuTarget(bound float64) target {
	return target{figure{"controller CPU-seconds over the rollout, ours / upstream's", bound, "×"}, func(p pair) float64 {
		if p.ours.cpu.rollout <= 0 || p.upstream.cpu.rollout <= 0 {
			return math.Inf(1)
		}
		return p.ours.cpu.rollout / p.upstream.cpu.rollout
	}}
}

var statusUpdate = writeKey{Verb: "PUT", Resource: "deployments/status"}

// conflictShare is the percentage of our Deployment status updates that
// the API server refused with 409 Conflict.
func conflictShare(p pair) float64 {
	return 100 * ratio(p.ours.conflicts[statusUpdate], p.ours.apiWrites[statusUpdate])
}

func ratio[T int | float64](a, b T) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// renderTargets is a markdown table of each target: its value in every
// pair, the median and the spread (lowest–highest) over the pairs, the
// bound, and whether the median meets it. A pair with a run whose phases
// did not all finish counts as missing every target.
func renderTargets(pairs []pair, targets []target) string {
	var b strings.Builder
	b.WriteString("| target |")
	for i := range pairs {
		fmt.Fprintf(&b, " pair %d |", i+1)
	}
	b.WriteString(" median | spread | bound | met |\n|---|" + strings.Repeat("---:|", len(pairs)+3) + "---|\n")
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
		m, spread, bound, met := median(values), "n/a", "—", "—"
		if len(values) > 0 && !math.IsInf(slices.Max(values), 0) {
			spread = t.format(slices.Min(values)) + "–" + t.format(slices.Max(values))
		}
		if t.bound > 0 {
			bound, met = "≤ "+t.format(t.bound), "no"
			if m <= t.bound {
				met = "yes"
			}
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s |\n", t.format(m), spread, bound, met)
	}
	return b.String()
}

// format prints v in f's unit with two decimals, or three where two
// would print v as the bound it misses or meets by less (1.003× against
// ≤ 1.00×); an infinite v (a run that did not finish) as n/a.
func (f figure) format(v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return "n/a"
	}
	unit, decimals := "×", 2
	if f.unit == "%" {
		unit = "%"
	}
	if f.bound > 0 && v != f.bound && math.Round(v*100) == math.Round(f.bound*100) {
		decimals = 3
	}
	return fmt.Sprintf("%.*f%s", decimals, v, unit)
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
