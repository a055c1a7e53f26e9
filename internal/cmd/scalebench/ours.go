package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

const (
	// controllerPackage is our Deployment controller's command.
	controllerPackage = "github.com/ctrlkit/ctrlkit/examples/deployment-controller"
	// ringName is the shard ring of a sharded run.
	ringName = "scalebench"
	// readyTimeout bounds the wait for every process to sync its caches
	// and, in a ring, for the ring to hand out every range: a few rounds.
	readyTimeout = 2 * time.Minute
	// stopGrace is how long a process may take to leave after SIGTERM:
	// the ring's drain bound (sharding.DefaultDrainTimeout) and some.
	stopGrace = 45 * time.Second
)

// buildController builds controllerPackage into dir (the go command
// caches the build; the working directory must be in this module).
func buildController(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "deployment-controller")
	out, err := exec.CommandContext(ctx, "go", "build", "-o", bin, controllerPackage).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", controllerPackage, err, out)
	}
	return bin, nil
}

// controllerProcess is one process of our controller, its output in a
// file. url is its health probe and metrics server's, once read from its
// log.
type controllerProcess struct {
	name, logPath, url string
	*childproc.Process
}

// servingLine is the manager's log line that gives its server's address.
// All endpoints share one address, so its name lists them: "health probe
// and metrics and pprof server".
var servingLine = regexp.MustCompile(`"Serving".* server="[^"]*metrics[^"]*server" addr="([^"]+)"`)

// controllerGroup is a run's processes of our controller.
type controllerGroup []*controllerProcess

// startControllers starts our controller against the control plane of
// kubeconfig, its logs in dir: one process, or members processes of one
// shard ring, debounced when debounce is positive; and waits until every
// one is ready.
func startControllers(ctx context.Context, bin, kubeconfig, dir string, members int, debounce time.Duration) (controllerGroup, error) {
	args := []string{
		"--kubeconfig=" + kubeconfig, "--leader-elect=false",
		fmt.Sprintf("--concurrent-deployment-syncs=%d", workers),
		fmt.Sprintf("--kube-api-qps=%d", qps), fmt.Sprintf("--kube-api-burst=%d", burst),
		// One server on a free port for /readyz, /metrics and
		// /debug/pprof/ (the memory mode's heap profiles).
		"--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0",
		"--pprof-bind-address=127.0.0.1:0",
	}
	if debounce > 0 {
		args = append(args, "--debounce="+debounce.String())
	}
	if members > 0 {
		args = append(args, "--shard-ring="+ringName)
	}
	var g controllerGroup
	for i := range max(1, members) {
		p := &controllerProcess{name: fmt.Sprintf("controller-%d", i)}
		p.logPath = filepath.Join(dir, p.name+".log")
		out, err := os.Create(p.logPath)
		if err != nil {
			return nil, errors.Join(err, g.stop())
		}
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = out, out
		p.Process, err = childproc.Start(cmd)
		out.Close() // the child has its own copy
		if err != nil {
			return nil, errors.Join(fmt.Errorf("start %s: %w", p.name, err), g.stop())
		}
		g = append(g, p)
	}
	if err := g.waitReady(ctx, members); err != nil {
		return nil, errors.Join(err, g.stop())
	}
	return g, nil
}

// waitReady polls until every process is ready (see ready).
func (g controllerGroup) waitReady(ctx context.Context, members int) error {
	deadline := time.Now().Add(readyTimeout)
	for {
		var waiting []string
		for _, p := range g {
			if !p.Running() {
				return p.failure()
			}
			if err := p.ready(ctx, members); err != nil {
				waiting = append(waiting, fmt.Sprintf("%s: %v", p.name, err))
			}
		}
		if len(waiting) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %s: %s", readyTimeout, strings.Join(waiting, "; "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ready says why p is not ready yet, or nil: its /readyz answers 200 (its
// caches have synced) and, in a ring of members, it sees them all and
// serves its whole target range.
func (p *controllerProcess) ready(ctx context.Context, members int) error {
	if p.url == "" {
		log, err := os.ReadFile(p.logPath)
		m := servingLine.FindSubmatch(log)
		if m == nil {
			return errors.Join(errors.New("no server address in its log yet"), err)
		}
		p.url = "http://" + string(m[1])
	}
	if _, err := get(ctx, p.url+"/readyz"); err != nil {
		return err
	}
	if members == 0 {
		return nil
	}
	metrics, err := p.metrics(ctx)
	if err != nil {
		return err
	}
	seen, target, serving := gauge(metrics, "ctrlkit_shard_ring_members"), gauge(metrics, "ctrlkit_shard_range_fraction"), gauge(metrics, "ctrlkit_shard_serving_fraction")
	if int(seen) != members || target == 0 || serving != target {
		return fmt.Errorf("sees %v of %d ring members, serves %v of its %v of the hash space", seen, members, serving, target)
	}
	return nil
}

// memberReport is what one ring member's /metrics says at the end of a
// run.
type memberReport struct {
	name          string
	rangeFraction float64        // share of the hash space it was assigned
	keys          int            // namespaces it reconciled in its range
	cached        map[string]int // its sharded informers' objects, by resource
}

func (r memberReport) cachedTotal() int {
	n := 0
	for _, c := range r.cached {
		n += c
	}
	return n
}

// reports reads every ring member's metrics, in the group's order.
func (g controllerGroup) reports(ctx context.Context) ([]memberReport, error) {
	var out []memberReport
	for _, p := range g {
		metrics, err := p.metrics(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		r := memberReport{name: p.name, cached: map[string]int{},
			rangeFraction: gauge(metrics, "ctrlkit_shard_range_fraction"), keys: int(gauge(metrics, "ctrlkit_shard_keys_owned"))}
		for _, m := range metrics["ctrlkit_shard_cached_objects"].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "resource" {
					r.cached[l.GetValue()] = int(m.GetGauge().GetValue())
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// reconciles sums the group's completed reconciles, whatever their
// result.
func (g controllerGroup) reconciles(ctx context.Context) (int, error) {
	n := 0.0
	for _, p := range g {
		metrics, err := p.metrics(ctx)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p.name, err)
		}
		for _, m := range metrics["controller_runtime_reconcile_total"].GetMetric() {
			n += m.GetCounter().GetValue()
		}
	}
	return int(n), nil
}

// stop stops every process at once, each as childproc's Shutdown does.
func (g controllerGroup) stop() error {
	errs := make(chan error, len(g))
	for _, p := range g {
		go func() {
			if err := p.Shutdown(stopGrace); err != nil {
				errs <- fmt.Errorf("%s (log %s): %w", p.name, p.logPath, err)
				return
			}
			errs <- nil
		}()
	}
	var all []error
	for range g {
		all = append(all, <-errs)
	}
	return errors.Join(all...)
}

// failure describes a process that exited early: its status and the end
// of its log.
func (p *controllerProcess) failure() error {
	log, _ := os.ReadFile(p.logPath)
	lines := strings.Split(strings.TrimRight(string(log), "\n"), "\n")
	return fmt.Errorf("%s exited (%v); the end of %s:\n%s", p.name, p.Err(), p.logPath, strings.Join(lines[max(0, len(lines)-20):], "\n"))
}

// httpClient keeps no idle connections to processes that come and go.
var httpClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// get returns the body at url, or an error unless it answers 200.
func get(ctx context.Context, url string) ([]byte, error) { return getWith(ctx, httpClient, url) }

func (p *controllerProcess) metrics(ctx context.Context) (map[string]*dto.MetricFamily, error) {
	body, err := get(ctx, p.url+"/metrics")
	if err != nil {
		return nil, err
	}
	return parseMetrics(body)
}

// gauge is the value of a family's one gauge (one ring: one series), or 0.
func gauge(families map[string]*dto.MetricFamily, name string) float64 {
	if ms := families[name].GetMetric(); len(ms) == 1 {
		return ms[0].GetGauge().GetValue()
	}
	return 0
}
