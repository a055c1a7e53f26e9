package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const usage = `Usage:
  scalebench pairs  [-n N] [-r R] [-pairs P] [-debounce T] [-dir D]
                                                           ours against kube-controller-manager's
  scalebench shards [-n N] [-r R] [-namespaces M] [-replicas K] [-dir D]
                                                           a ring of K replicas against a ring of 1
  scalebench memory [-n N] [-r R] [-namespaces M] [-runs K] [-settle T] [-rollout=false] [-dir D]
                                                           memory after a burst and after a restart,
                                                           ours against kube-controller-manager's
  scalebench neighbours [-n N] [-r R] [-quiet M] [-pairs P] [-load] [-dir D]
                                                           a quiet namespace's new Deployments during
                                                           a busy one's rollout: ours, upstream's, and
                                                           ours without namespace lanes
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "scalebench:", err)
		os.Exit(1)
	}
}

// config is the parsed command line.
type config struct {
	mode        string // "pairs", "shards", "memory" or "neighbours"
	deployments int
	replicas    int           // of each Deployment
	pairs       int           // pairs and memory: runs of each controller
	namespaces  int           // the Deployments are spread round-robin over ns-0, ns-1, ...
	members     int           // shards: the sharded ring's replicas
	debounce    time.Duration // pairs: our controller's --debounce
	settle      time.Duration // memory: each process's sampling window
	noRollout   bool          // memory: the burst is the creates alone
	quiet       int           // neighbours: Deployments created in the quiet namespace
	load        bool          // pairs and neighbours: a busy loop per core during the phases
	dir         string
	bin         string // examples/deployment-controller, built by run
}

// parseFlags parses a subcommand and its flags. Usage and errors go to
// output.
func parseFlags(args []string, output io.Writer) (config, error) {
	if len(args) == 0 || !slices.Contains([]string{"pairs", "shards", "memory", "neighbours"}, args[0]) {
		fmt.Fprint(output, usage)
		return config{}, errors.New("the first argument must be pairs, shards, memory or neighbours")
	}
	c := config{mode: args[0], namespaces: 1}
	fs := flag.NewFlagSet("scalebench "+c.mode, flag.ContinueOnError)
	fs.SetOutput(output)
	defaultDeployments, defaultReplicas := 1000, 3
	switch c.mode {
	case "memory":
		defaultReplicas = 10
	case "neighbours":
		defaultDeployments, defaultReplicas = 300, 1
	}
	fs.IntVar(&c.deployments, "n", defaultDeployments, "number of `Deployments`")
	fs.IntVar(&c.replicas, "r", defaultReplicas, "`replicas` of each Deployment")
	fs.StringVar(&c.dir, "dir", "", "keep each run's control plane files and controller logs under `dir` (default: temporary)")
	switch c.mode {
	case "pairs":
		fs.IntVar(&c.pairs, "pairs", 3, "`pairs` of runs, ours first in odd pairs and upstream first in even ones")
		fs.DurationVar(&c.debounce, "debounce", 0, "run ours with --debounce=`duration` (0: none, as upstream)")
		fs.BoolVar(&c.load, "load", false, "run every phase under a controlled CPU load: one busy loop per core")
	case "neighbours":
		fs.IntVar(&c.pairs, "pairs", 3, "`groups` of three runs (ours, upstream's, ours without lanes), each group in another order")
		fs.IntVar(&c.quiet, "quiet", 20, "`Deployments` created in the quiet namespace during the rollout, one every 0.5 s")
		fs.BoolVar(&c.load, "load", false, "run every phase under a controlled CPU load: one busy loop per core")
	case "shards":
		fs.IntVar(&c.namespaces, "namespaces", 300, "spread the Deployments over this many `namespaces`")
		fs.IntVar(&c.members, "replicas", 3, "`replica` processes of the sharded run (compared with 1)")
	default:
		fs.IntVar(&c.namespaces, "namespaces", 20, "spread the Deployments over this many `namespaces`")
		fs.IntVar(&c.pairs, "runs", 3, "`runs` of each controller, each on a fresh control plane")
		fs.DurationVar(&c.settle, "settle", 2*time.Minute, "sample each process over this `window` once it is idle")
		fs.BoolFunc("rollout", "`false`: the burst is the creates alone, without rolling every Deployment to a new image", func(v string) error {
			on, err := strconv.ParseBool(v)
			c.noRollout = !on
			return err
		})
	}
	if err := fs.Parse(args[1:]); err != nil {
		return config{}, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	for _, f := range []struct {
		name       string
		value, min int
	}{{"-n", c.deployments, 1}, {"-r", c.replicas, 1}, {"-namespaces", c.namespaces, 1}} {
		if f.value < f.min {
			errs = append(errs, fmt.Errorf("%s must be at least %d, got %d", f.name, f.min, f.value))
		}
	}
	if c.debounce < 0 {
		errs = append(errs, fmt.Errorf("-debounce must not be negative, got %s", c.debounce))
	}
	if (c.mode == "pairs" || c.mode == "neighbours") && c.pairs < 1 {
		errs = append(errs, fmt.Errorf("-pairs must be at least 1, got %d", c.pairs))
	}
	if c.mode == "neighbours" && c.quiet < 1 {
		errs = append(errs, fmt.Errorf("-quiet must be at least 1, got %d", c.quiet))
	}
	if c.mode == "memory" && (c.pairs < 1 || c.settle <= 0) {
		errs = append(errs, fmt.Errorf("-runs must be at least 1 and -settle positive, got %d and %s", c.pairs, c.settle))
	}
	if c.mode == "shards" && c.members < 2 {
		errs = append(errs, fmt.Errorf("-replicas must be at least 2 (it is compared with 1), got %d", c.members))
	}
	return c, errors.Join(errs...)
}

// runs are the runs of c's mode, in order.
func (c config) runs() []runSpec {
	switch c.mode {
	case "shards":
		return []runSpec{{controller: ours, members: 1}, {controller: ours, members: c.members}}
	case "neighbours":
		// Each group in another order, so that no side always runs first.
		group := []runSpec{{controller: ours}, {controller: upstream}, {controller: ours, fifo: true}}
		var runs []runSpec
		for i := range c.pairs {
			for j := range group {
				runs = append(runs, group[(i+j)%len(group)])
			}
		}
		return runs
	}
	var runs []runSpec
	for i := range c.pairs {
		if i%2 == 0 {
			runs = append(runs, runSpec{controller: ours}, runSpec{controller: upstream})
		} else {
			runs = append(runs, runSpec{controller: upstream}, runSpec{controller: ours})
		}
	}
	return runs
}

// run makes every run of the mode, logging progress to log, and prints
// the tables of those that finished to out. A failed run does not stop
// the others; its error is returned at the end.
func run(ctx context.Context, args []string, out, log io.Writer) error {
	cfg, err := parseFlags(args, log)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "scalebench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if cfg.bin, err = buildController(ctx, tmp); err != nil {
		return err
	}
	began := time.Now().UTC()
	var (
		results []result
		errs    []error
	)
	runs := cfg.runs()
	for i, spec := range runs {
		res, err := benchmark(ctx, cfg, spec, cfg.runDir(i, spec), log)
		res.group = i / cfg.groupSize()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", spec, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		results = append(results, res)
	}
	if len(results) > 0 {
		fmt.Fprintf(out, "scalebench %s\n\nstarted %s, %d kwok nodes, %d cores, %s\n\n",
			strings.Join(args, " "), began.Format(time.RFC3339), cfg.nodeCount(), runtime.NumCPU(), runtime.Version())
		fmt.Fprint(out, renderRuns(results))
		switch cfg.mode {
		case "pairs":
			fmt.Fprint(out, "\n"+renderTargets(pairUp(results), targets))
		case "shards":
			fmt.Fprint(out, "\n"+renderShards(results))
		case "memory":
			fmt.Fprint(out, "\n"+renderMemory(pairUp(results)))
		case "neighbours":
			fmt.Fprint(out, "\n"+renderQuiet(results)+"\n"+renderTargets(groups(results), neighbourTargets))
		}
	}
	return errors.Join(errs...)
}

// groupSize is how many runs make one group: a pair, or in the neighbours
// mode a triple.
func (c config) groupSize() int {
	if c.mode == "neighbours" {
		return 3
	}
	return 2
}
