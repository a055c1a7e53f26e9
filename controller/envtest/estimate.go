package envtest

import (
	"fmt"
	"math"
)

// buildCost is roughly how many CPU-minutes a cold build of a program adds
// (empty Go build and module caches), measured on a 2-core machine. The
// Kubernetes programs share most of their packages, so the first one costs
// most and the others little.
var buildCost = map[string]float64{
	"etcd":                    6,
	"kwok":                    7,
	"kube-apiserver":          5,
	"kube-scheduler":          2,
	"kube-controller-manager": 4,
	"kubectl":                 2,
}

// kubernetesBaseCost is the CPU-minutes of the packages every Kubernetes
// program shares (client-go, apimachinery, the API types, component-base).
const kubernetesBaseCost = 10

// buildEstimate says how long building progs should take on cores CPUs,
// as a rough range for the log.
func buildEstimate(progs []program, cores int) string {
	cost := 0.0
	k8s := false
	for _, p := range progs {
		cost += buildCost[p.name]
		k8s = k8s || p.module == kubernetesModule
	}
	if k8s {
		cost += kubernetesBaseCost
	}
	if cores < 1 {
		cores = 1
	}
	// A go build rarely keeps more than 4 cores busy through links.
	minutes := cost / math.Min(float64(cores), 4)
	lo, hi := math.Max(1, math.Floor(minutes*0.7)), math.Ceil(minutes*1.3)
	return fmt.Sprintf("a cold build takes about %.0f-%.0f minutes on this machine's %d cores (less with a warm Go build cache)", lo, hi, cores)
}
