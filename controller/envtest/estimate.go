package envtest

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// The build-time model: each program adds the time of its own packages
// and its link, and each group of packages that several programs share is
// paid once, by the first of them built. The weights are seconds of a
// first build measured one program after another (issue 33: etcd 4m17s,
// kwok 4m57s, kubectl 1m38s, kube-scheduler 7m55s, kube-controller-manager
// 7m21s, kube-apiserver 24s), each program's time being what it added to
// those before it. What a program shares is the difference from its time
// when the others came first (controller/envtest/README.md, kube-apiserver
// first: kwok 1m7s, kube-scheduler 3m59s, kube-controller-manager 3m48s):
// kwok's 4m57s less 1m7s are the client libraries, the scheduler's 7m55s
// less 3m59s the server packages, the controller manager's 7m21s less 3m48s
// what it shares with kube-apiserver alone.
//
// The scale comes from one go build of the Full set (etcd,
// kube-apiserver, kube-scheduler, kube-controller-manager, kwok) with empty
// Go build and module caches on an idle 2-core machine: 7m23s, so its
// 1494 weight-seconds are 2 × 443 core-seconds there.
var buildCost = map[string]float64{
	"etcd":                    257,
	"kube-apiserver":          24,
	"kube-scheduler":          239,
	"kube-controller-manager": 228,
	"kwok":                    67,
	"kubectl":                 98,
}

// sharedCost are the groups of packages several programs share, with the
// programs that need each, in the weights of buildCost.
var sharedCost = []struct {
	cost  float64
	users []string
}{
	// apimachinery, client-go, the API types.
	{230, []string{"kwok", "kubectl", "kube-apiserver", "kube-scheduler", "kube-controller-manager"}},
	// k8s.io/apiserver, component-base and what serving needs.
	{236, []string{"kube-apiserver", "kube-scheduler", "kube-controller-manager"}},
	// k8s.io/kubernetes's internal API types, validation and storage.
	{213, []string{"kube-apiserver", "kube-controller-manager"}},
}

// The calibration: the Full set's weights, and its measured build.
const (
	referenceWeight = 1494
	referenceFull   = 7*time.Minute + 23*time.Second
	referenceCores  = 2
)

// estimateBuild is the model's time for a cold build of progs on cores
// CPUs: the core-seconds divided by the cores. A go build keeps every core
// busy on a graph this wide; past 8 cores the longest chain of packages
// and the links bound it instead, so more cores are not counted (an
// assumption: only 2 cores were measured).
func estimateBuild(progs []program, cores int) time.Duration {
	cost := 0.0
	for _, p := range progs {
		cost += buildCost[p.name]
	}
	for _, g := range sharedCost {
		if slices.ContainsFunc(progs, func(p program) bool { return slices.Contains(g.users, p.name) }) {
			cost += g.cost
		}
	}
	coreTime := cost / referenceWeight * referenceCores * float64(referenceFull)
	c := math.Min(math.Max(float64(cores), 1), 8)
	return time.Duration(coreTime / c).Round(time.Second)
}

// buildEstimate says, for the log, how long building progs should take on
// cores CPUs, in whole minutes, and what the figure rests on.
func buildEstimate(progs []program, cores int) string {
	d := estimateBuild(progs, cores)
	about := "under a minute"
	if m := int(math.Round(d.Minutes())); m == 1 {
		about = "about 1 minute"
	} else if m > 1 {
		about = fmt.Sprintf("about %d minutes", m)
	}
	unit := "cores"
	if cores == 1 {
		unit = "core"
	}
	return fmt.Sprintf("a cold build takes %s on this machine's %d %s (the Full set took %s on an idle 2-core machine; less with a warm Go build cache, more when the cores are busy)",
		about, cores, unit, referenceFull)
}
