package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

const (
	// controllerPackage is our Deployment controller's command.
	controllerPackage = "github.com/ctrlkit/ctrlkit/examples/deployment-controller"
	// ringName is the shard ring of a sharded run.
	ringName = "scalebench"
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

// commonArgs are the conditions both controllers run under: the workers
// and the client's rate limit.
func (c config) commonArgs() []string {
	q, b := qps, burst
	if c.mode == "neighbours" {
		q, b = defaultQPS, defaultBurst
	}
	return []string{
		"--leader-elect=false",
		fmt.Sprintf("--concurrent-deployment-syncs=%d", workers),
		fmt.Sprintf("--kube-api-qps=%d", q), fmt.Sprintf("--kube-api-burst=%d", b),
	}
}

// startOurs starts our controller against cp, its logs in dir: one
// process, or spec.members processes of one shard ring, debounced when
// cfg.debounce is positive, without namespace lanes when spec.fifo; and
// waits until every one is ready (see oursReady).
func startOurs(ctx context.Context, cfg config, cp *envtest.Environment, dir string, spec runSpec) ([]*process, error) {
	members := spec.members
	var procs []*process
	for i := range max(1, members) {
		port, err := freePort()
		if err != nil {
			return nil, errors.Join(err, stopAll(procs))
		}
		// One server for /readyz, /metrics and /debug/pprof/.
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		args := append([]string{"--kubeconfig=" + cp.KubeconfigPath(), "--metrics-bind-address=" + addr,
			"--health-probe-bind-address=" + addr, "--pprof-bind-address=" + addr}, cfg.commonArgs()...)
		if cfg.debounce > 0 {
			args = append(args, "--debounce="+cfg.debounce.String())
		}
		if members > 0 {
			args = append(args, "--shard-ring="+ringName)
		}
		if spec.fifo {
			args = append(args, "--namespace-lanes=false")
		}
		p, err := startProcess(fmt.Sprintf("controller-%d", i), cfg.bin, args, dir, "http://"+addr, plainHTTP)
		if err != nil {
			return nil, errors.Join(err, stopAll(procs))
		}
		procs = append(procs, p)
	}
	ready := func(ctx context.Context, p *process) error { return oursReady(ctx, p, members) }
	if err := waitReady(ctx, procs, ready); err != nil {
		return nil, errors.Join(err, stopAll(procs))
	}
	return procs, nil
}

// oursReady says why p is not ready yet, or nil: its /readyz answers 200
// (its caches have synced) and, in a ring of members, it sees them all
// and serves its whole target range.
func oursReady(ctx context.Context, p *process, members int) error {
	if _, err := p.get(ctx, "/readyz"); err != nil || members == 0 {
		return err
	}
	m, err := p.metrics(ctx)
	if err != nil {
		return err
	}
	seen, target, serving := m.value("ctrlkit_shard_ring_members"), m.value("ctrlkit_shard_range_fraction"), m.value("ctrlkit_shard_serving_fraction")
	if int(seen) != members || target == 0 || serving != target {
		return fmt.Errorf("sees %v of %d ring members, serves %v of its %v of the hash space", seen, members, serving, target)
	}
	return nil
}

// startKCM starts a second kube-controller-manager against cp, beside the
// control plane's own (which runs the ReplicaSet controller and the
// rest), with only the Deployment controller: the process ours is
// measured against. Its logs go to dir. Its secure port serves
// /metrics and /debug/pprof/ (--profiling is on by default) to the admin
// credentials.
func startKCM(ctx context.Context, cfg config, cp *envtest.Environment, dir string) (*process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	kubeconfig := cp.KubeconfigPath()
	args := append([]string{"--kubeconfig=" + kubeconfig, "--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig, "--bind-address=127.0.0.1", fmt.Sprintf("--secure-port=%d", port),
		"--controllers=deployment"}, cfg.commonArgs()...)
	// kcm serves a certificate it makes at start: on this loopback port,
	// the client's identity matters, not the server's.
	rc := cp.RESTConfig()
	rc.TLSClientConfig = rest.TLSClientConfig{Insecure: true}
	rc.Timeout = 30 * time.Second
	client, err := rest.HTTPClientFor(rc)
	if err != nil {
		return nil, err
	}
	p, err := startProcess("kube-controller-manager-deployment", cp.Binaries().Path("kube-controller-manager"), args,
		dir, fmt.Sprintf("https://127.0.0.1:%d", port), client)
	if err != nil {
		return nil, err
	}
	healthy := func(ctx context.Context, p *process) error { _, err := p.get(ctx, "/healthz"); return err }
	if err := waitReady(ctx, []*process{p}, healthy); err != nil {
		return nil, errors.Join(err, p.stop())
	}
	return p, nil
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

// reports reads every ring member's metrics, in order.
func reports(ctx context.Context, procs []*process) ([]memberReport, error) {
	var out []memberReport
	for _, p := range procs {
		m, err := p.metrics(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.name, err)
		}
		r := memberReport{name: p.name, cached: map[string]int{},
			rangeFraction: m.value("ctrlkit_shard_range_fraction"), keys: int(m.value("ctrlkit_shard_keys_owned"))}
		for _, s := range m["ctrlkit_shard_cached_objects"].GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "resource" {
					r.cached[l.GetValue()] = int(s.GetGauge().GetValue())
				}
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// reconciles sums the processes' completed reconciles, whatever their
// result.
func reconciles(ctx context.Context, procs []*process) (int, error) {
	n := 0.0
	for _, p := range procs {
		m, err := p.metrics(ctx)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p.name, err)
		}
		for _, s := range m["controller_runtime_reconcile_total"].GetMetric() {
			n += s.GetCounter().GetValue()
		}
	}
	return int(n), nil
}

// processUsage is what the Deployment controller processes have used so
// far: CPU-seconds and GET requests.
type processUsage struct{ cpu, reads float64 }

// processUsageOf sums process_cpu_seconds_total and rest_client_requests_total's
// GET series over procs. Both controllers export both.
func processUsageOf(ctx context.Context, procs []*process) (processUsage, error) {
	var u processUsage
	for _, p := range procs {
		m, err := p.metrics(ctx)
		if err != nil {
			return u, fmt.Errorf("%s: %w", p.name, err)
		}
		if _, ok := m["process_cpu_seconds_total"]; !ok {
			return u, fmt.Errorf("%s exports no process_cpu_seconds_total", p.name)
		}
		u.cpu += m.value("process_cpu_seconds_total")
		for _, s := range m["rest_client_requests_total"].GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == "method" && l.GetValue() == "GET" {
					u.reads += s.GetCounter().GetValue()
				}
			}
		}
	}
	return u, nil
}

// rolloutProfile is how long the CPU profile of each controller process
// runs from the rollout's start: most of a 300-Deployment rollout, and
// the busiest part of a longer one.
const rolloutProfile = 30 * time.Second

// profileRollout takes a CPU profile of each process for rolloutProfile
// from now (/debug/pprof/profile: ours serves it beside /metrics,
// kube-controller-manager on its secure port) into dir/cpu-rollout-NAME.pb.gz,
// and sends the first failure, or nil, once all are written.
func profileRollout(ctx context.Context, procs []*process, dir string) <-chan error {
	done := make(chan error, 1)
	go func() {
		errs := make([]error, len(procs))
		var wg sync.WaitGroup
		for i, p := range procs {
			wg.Go(func() {
				path := fmt.Sprintf("/debug/pprof/profile?seconds=%d", int(rolloutProfile.Seconds()))
				body, err := p.getWithin(ctx, path, rolloutProfile+30*time.Second)
				if err == nil {
					err = os.WriteFile(filepath.Join(dir, "cpu-rollout-"+p.name+".pb.gz"), body, 0o644)
				}
				errs[i] = err
			})
		}
		wg.Wait()
		done <- errors.Join(errs...)
	}()
	return done
}

// keepDiagnostics writes, as they are at the rollout's end, each
// process's /metrics page into dir/metrics-rollout-NAME.txt and its
// allocations since its start (/debug/pprof/allocs) into
// dir/allocs-NAME.pb.gz, and kube-apiserver's /metrics into
// dir/metrics-rollout-kube-apiserver.txt: what the tables do not show
// (ours' cache holds, the queues' waits, the client's and the server's
// latencies, the GC and what feeds it). A failure is logged: these are a
// diagnosis, not a result.
func keepDiagnostics(ctx context.Context, procs []*process, client kubernetes.Interface, dir string, log io.Writer) {
	keep := func(file string, body []byte, err error) {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, file), body, 0o644)
		}
		if err != nil {
			fmt.Fprintf(log, "scalebench: no %s: %v\n", file, err)
		}
	}
	for _, p := range procs {
		body, err := p.get(ctx, "/metrics")
		keep("metrics-rollout-"+p.name+".txt", body, err)
		body, err = p.get(ctx, "/debug/pprof/allocs")
		keep("allocs-"+p.name+".pb.gz", body, err)
	}
	body, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	keep("metrics-rollout-kube-apiserver.txt", body, err)
}
