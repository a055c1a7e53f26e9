package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"time"
)

// controllerKind names a Deployment controller under test.
type controllerKind string

const (
	ours     controllerKind = "ours"
	upstream controllerKind = "upstream"
	// sharded is our controller as replica processes in a shard ring
	// (-shards).
	sharded controllerKind = "ours, ring of"
)

// runSpec is one run: a controller and, for sharded, how many replicas.
type runSpec struct {
	kind     controllerKind
	replicas int
}

// config is the parsed command line.
type config struct {
	deployments   int
	replicas      int
	controllers   []controllerKind
	pairs         int // with both controllers: runs of each, in alternating order
	nodes         int // zero: enough for the pods, see nodeCount
	workers       int
	qps           float64
	burst         int
	createWorkers int
	phaseTimeout  time.Duration
	dir           string
	cpuProfile    string // file for a CPU profile of the process while ours runs
	gogc          int    // this process's GC percent (debug.SetGCPercent), not kcm's
	idleInformers bool   // upstream runs also run our controller's informers, unread
	shards        int    // replicas of the sharded run; 0: no sharding runs
	namespaces    int    // the Deployments are spread over this many
}

// runs are the benchmark's runs in order: with -shards, a ring of one
// replica, then one of -shards replicas; else runOrder's.
func (c config) runs() []runSpec {
	if c.shards > 0 {
		return []runSpec{{sharded, 1}, {sharded, c.shards}}
	}
	var runs []runSpec
	for _, kind := range c.runOrder() {
		runs = append(runs, runSpec{kind: kind})
	}
	return runs
}

// podsPerNode is the pod capacity of a kwok node (see controller/envtest).
const podsPerNode = 1000

// nodeCount is the number of kwok nodes: as given, or room for every pod
// twice over, since a rollout briefly holds old, new and terminating pods.
func (c config) nodeCount() int {
	if c.nodes > 0 {
		return c.nodes
	}
	pods := 2 * c.deployments * (c.replicas + 1)
	return max(1, (pods+podsPerNode-1)/podsPerNode)
}

// parseFlags parses args into a config. Usage and errors go to output.
func parseFlags(args []string, output io.Writer) (config, error) {
	fs := flag.NewFlagSet("scalebench", flag.ContinueOnError)
	fs.SetOutput(output)
	var c config
	fs.IntVar(&c.deployments, "n", 1000, "number of `Deployments`")
	fs.IntVar(&c.replicas, "r", 3, "`replicas` per Deployment")
	which := fs.String("controller", "both", "Deployment controller to measure: ours, upstream or both")
	fs.IntVar(&c.pairs, "pairs", 1, "with -controller both, how many `pairs` of runs, each run on a fresh control plane, ours first in odd pairs and upstream first in even ones; with more than one, a summary of the medians against the targets follows the table")
	fs.IntVar(&c.nodes, "nodes", 0, "number of kwok `nodes` (0: enough for twice the pods, 1000 pods a node)")
	fs.IntVar(&c.workers, "workers", 5, "our controller's `workers` (kube-controller-manager runs 5)")
	fs.Float64Var(&c.qps, "qps", 500, "client `QPS` of our controller and of kube-controller-manager")
	fs.IntVar(&c.burst, "burst", 1000, "client `burst` of our controller (kube-controller-manager's is twice -qps)")
	fs.IntVar(&c.createWorkers, "create-workers", 50, "concurrent `requests` the benchmark uses to create and patch Deployments")
	fs.DurationVar(&c.phaseTimeout, "phase-timeout", 20*time.Minute, "give up a phase (create or rollout) after this `duration`")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of this process (our controller, the informers and the benchmark's own work) during the ours run to `file`")
	fs.BoolVar(&c.idleInformers, "idle-informers", false, "in upstream runs, also run in this process the informers our controller runs (Deployments, ReplicaSets, pods; protobuf without gzip, managedFields stripped) with no controller reading them: what running beside kube-controller-manager costs the control plane, without our controller")
	fs.IntVar(&c.gogc, "gogc", 100, "GC `percent` of this process only (debug.SetGCPercent; 100 is Go's default), to see whether garbage collection in the process our controller shares with the benchmark slows it; kube-controller-manager is not affected")
	fs.IntVar(&c.shards, "shards", 0, "run our controller as replica processes of a shard ring (controller/sharding) on control planes with the ShardedListAndWatch feature gate: first a ring of 1, then a ring of `n` (at least 2), each on a fresh control plane, and compare each replica's cached objects, heap, list and watch bytes, and the rollout times; 0: no sharding runs")
	fs.IntVar(&c.namespaces, "namespaces", 1, "spread the Deployments round-robin over this many `namespaces` (1: all in namespace scalebench); a ring shards by namespace")
	fs.StringVar(&c.dir, "dir", "", "keep each control plane's files (logs) under `dir`/<controller> (default: temporary, removed)")
	fs.Usage = func() {
		fmt.Fprintln(output, "Usage: scalebench [flags]\n\nCreates N Deployments of R replicas, rolls them all to a new image, and\nreports the time until all are available and the Deployment controller's API writes.\n\nFlags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var errs []error
	switch *which {
	case "ours":
		c.controllers = []controllerKind{ours}
	case "upstream":
		c.controllers = []controllerKind{upstream}
	case "both":
		c.controllers = []controllerKind{ours, upstream}
	default:
		errs = append(errs, fmt.Errorf("-controller must be ours, upstream or both, got %q", *which))
	}
	counts := []struct {
		flag  string
		value int
	}{{"-n", c.deployments}, {"-r", c.replicas}, {"-workers", c.workers}, {"-burst", c.burst}, {"-create-workers", c.createWorkers}, {"-gogc", c.gogc}, {"-pairs", c.pairs}}
	for _, n := range counts {
		if n.value <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %d", n.flag, n.value))
		}
	}
	if !(c.qps > 0) {
		errs = append(errs, fmt.Errorf("-qps must be positive, got %g", c.qps))
	}
	if c.phaseTimeout <= 0 {
		errs = append(errs, fmt.Errorf("-phase-timeout must be positive, got %s", c.phaseTimeout))
	}
	if c.nodes < 0 {
		errs = append(errs, fmt.Errorf("-nodes must not be negative, got %d", c.nodes))
	}
	if c.pairs > 1 && len(c.controllers) != 2 {
		errs = append(errs, fmt.Errorf("-pairs needs -controller both"))
	}
	if c.namespaces <= 0 {
		errs = append(errs, fmt.Errorf("-namespaces must be positive, got %d", c.namespaces))
	}
	if c.shards < 0 || c.shards == 1 {
		errs = append(errs, fmt.Errorf("-shards must be 0 (off) or at least 2 (it is compared with a ring of 1), got %d", c.shards))
	}
	if c.idleInformers && (c.shards > 0 || !slices.Contains(c.controllers, upstream)) {
		errs = append(errs, errors.New("-idle-informers applies to upstream runs only"))
	}
	if c.shards > 0 {
		// The sharded runs are of our controller only, in processes of
		// their own.
		if set["controller"] && *which != "ours" {
			errs = append(errs, fmt.Errorf("-shards runs our controller only, not -controller %s", *which))
		}
		if set["pairs"] {
			errs = append(errs, errors.New("-shards makes one run of each ring size; -pairs does not apply"))
		}
		if c.cpuProfile != "" {
			errs = append(errs, errors.New("-cpuprofile profiles this process, but with -shards the controller runs in replica processes"))
		}
	}
	if len(errs) > 0 {
		return config{}, errors.Join(errs...)
	}
	return c, nil
}
