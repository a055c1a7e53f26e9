package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// memSample is a process's memory over a settle window.
type memSample struct {
	// rssFirst and rssLast are its VmRSS at the start and the end of the
	// window, in bytes.
	rssFirst, rssLast uint64
	// heapInuse is go_memstats_heap_inuse_bytes at the end of the window,
	// read just after a forced GC: what the heap holds, not garbage that
	// an idle process has had no reason to collect yet.
	heapInuse float64
	// heapAlloc is go_memstats_heap_alloc_bytes at the same time: the live
	// objects. heapInuse less heapAlloc is the room the in-use spans have
	// free, fragmentation that an idle process keeps.
	heapAlloc float64
}

// memoryResult is what the memory mode measures of one controller in one
// run: the process that made the burst of creates and rollouts, and
// another started on the same objects.
type memoryResult struct{ burst, restart memSample }

// memProcess is a process whose memory is sampled: its ID, for
// /proc/<pid>/status, and a GET on its metrics and pprof server.
type memProcess struct {
	name string
	pid  int
	get  func(ctx context.Context, path string) ([]byte, error)
}

// memorySide is one controller in the memory mode: the process that made
// the burst, how to stop it, and how to start another on the same
// objects, logging into dir (returned with its stop).
type memorySide struct {
	burst     memProcess
	stopBurst func() error
	restart   func(ctx context.Context, dir string) (memProcess, func() error, error)
}

// oursSide is ours in a memory run: procs, one process of our controller,
// made the burst; a restart is another.
func oursSide(cfg config, cp *envtest.Environment, procs controllerGroup) memorySide {
	return memorySide{burst: oursForMemory(procs[0]), stopBurst: procs.stop,
		restart: func(ctx context.Context, dir string) (memProcess, func() error, error) {
			again, err := startControllers(ctx, cfg.bin, cp.KubeconfigPath(), dir, 0, cfg.debounce)
			if err != nil {
				return memProcess{}, nil, err
			}
			return oursForMemory(again[0]), again.stop, nil
		}}
}

// oursForMemory is p, one process of our controller, sampled through the
// server that serves its /metrics and /debug/pprof/.
func oursForMemory(p *controllerProcess) memProcess {
	return memProcess{name: p.name, pid: p.Pid(), get: func(ctx context.Context, path string) ([]byte, error) {
		return get(ctx, p.url+path)
	}}
}

// upstreamSide is kube-controller-manager in a memory run: kcm, with only
// its Deployment controller, made the burst; a restart is another such.
func upstreamSide(cp *envtest.Environment, kcm *deploymentKCM) memorySide {
	return memorySide{burst: kcm.memProcess, stopBurst: kcm.stop,
		restart: func(ctx context.Context, dir string) (memProcess, func() error, error) {
			again, err := startDeploymentKCM(ctx, cp, dir)
			if err != nil {
				return memProcess{}, nil, err
			}
			return again.memProcess, again.stop, nil
		}}
}

// measureMemory is the memory mode's part of a run, once the burst is
// over and the writes have stopped: it samples the process that made the
// burst, stops it, then starts and samples another on the same objects.
// One at a time: no two Deployment controllers run together. Heap
// profiles go to cp.Dir() (kept with -dir).
func measureMemory(ctx context.Context, cfg config, cp *envtest.Environment, side memorySide, log io.Writer) (res memoryResult, err error) {
	sample := func(p memProcess, label string) (memSample, error) {
		fmt.Fprintf(log, "scalebench memory: %s %s: waiting until it is idle, then sampling for %s\n", p.name, label, cfg.settle)
		if err := waitIdle(ctx, p, cfg.deployments); err != nil {
			return memSample{}, fmt.Errorf("%s: %w", label, err)
		}
		s, err := sampleMemory(ctx, p, cfg.settle, filepath.Join(cp.Dir(), "heap-"+label+".pb.gz"))
		if err != nil {
			return s, fmt.Errorf("%s: %w", label, err)
		}
		fmt.Fprintf(log, "scalebench memory: %s %s: RSS %s / %s, heap_inuse %s, heap_alloc %s\n", p.name, label, mib(float64(s.rssFirst)), mib(float64(s.rssLast)), mib(s.heapInuse), mib(s.heapAlloc))
		return s, nil
	}
	if res.burst, err = sample(side.burst, "burst"); err != nil {
		return res, err
	}
	if err := side.stopBurst(); err != nil {
		return res, err
	}
	// The restarted process logs under restart/, beside the burst's logs.
	dir := filepath.Join(cp.Dir(), "restart")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	p, stop, err := side.restart(ctx, dir)
	if err != nil {
		return res, fmt.Errorf("restart: %w", err)
	}
	res.restart, err = sample(p, "restart")
	return res, errors.Join(err, stop())
}

// idleTimeout bounds the wait for a process to work through its queue.
const idleTimeout = 10 * time.Minute

// waitIdle polls p's metrics until its Deployment queue is idle after n
// adds (see queueIdle).
func waitIdle(ctx context.Context, p memProcess, n int) error {
	deadline := time.Now().Add(idleTimeout)
	for {
		body, err := p.get(ctx, "/metrics")
		var families map[string]*dto.MetricFamily
		if err == nil {
			families, err = parseMetrics(body)
		}
		if err == nil && queueIdle(families, n) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not idle after %s: %v adds, depth %v (%v)", idleTimeout,
				queueSum(families, "workqueue_adds_total"), queueSum(families, "workqueue_depth"), err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// queueIdle reports whether the Deployment queue has taken at least n adds
// (a restarted controller queues every Deployment once its caches sync)
// and is empty.
func queueIdle(families map[string]*dto.MetricFamily, n int) bool {
	return queueSum(families, "workqueue_adds_total") >= float64(n) && queueSum(families, "workqueue_depth") == 0
}

// queueSum sums a workqueue metric's series for the "deployment" queue
// (ours labels them by priority too).
func queueSum(families map[string]*dto.MetricFamily, name string) float64 {
	sum := 0.0
	for _, m := range families[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "name" && l.GetValue() == "deployment" {
				sum += m.GetGauge().GetValue() + m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

func parseMetrics(body []byte) (map[string]*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.LegacyValidation)
	return parser.TextToMetricFamilies(bytes.NewReader(body))
}

// sampleMemory reads p's RSS, forces a GC (through the heap profile's
// gc=1) so that the burst's garbage does not count, waits out settle,
// then takes a heap profile (after another GC) into profile, and reads
// heap_inuse and the RSS again.
func sampleMemory(ctx context.Context, p memProcess, settle time.Duration, profile string) (s memSample, err error) {
	if s.rssFirst, err = vmRSS(p.pid); err != nil {
		return s, err
	}
	if _, err := p.get(ctx, "/debug/pprof/heap?gc=1"); err != nil {
		return s, err
	}
	select {
	case <-ctx.Done():
		return s, ctx.Err()
	case <-time.After(settle):
	}
	heap, err := p.get(ctx, "/debug/pprof/heap?gc=1")
	if err != nil {
		return s, err
	}
	if err := os.WriteFile(profile, heap, 0o644); err != nil {
		return s, err
	}
	body, err := p.get(ctx, "/metrics")
	if err != nil {
		return s, err
	}
	families, err := parseMetrics(body)
	if err != nil {
		return s, err
	}
	for name, v := range map[string]*float64{"go_memstats_heap_inuse_bytes": &s.heapInuse, "go_memstats_heap_alloc_bytes": &s.heapAlloc} {
		ms := families[name].GetMetric()
		if len(ms) != 1 {
			return s, fmt.Errorf("%s exposes no %s", p.name, name)
		}
		*v = ms[0].GetGauge().GetValue()
	}
	s.rssLast, err = vmRSS(p.pid)
	return s, err
}

// vmRSS is the resident set size of process pid, from /proc (Linux only).
func vmRSS(pid int) (uint64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseVmRSS(f)
}

// parseVmRSS reads the VmRSS line of a /proc/<pid>/status file, in bytes.
func parseVmRSS(r io.Reader) (uint64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		kb, ok := strings.CutSuffix(strings.TrimSpace(rest), " kB")
		if !ok {
			return 0, fmt.Errorf("VmRSS in an unknown unit: %q", sc.Text())
		}
		n, err := strconv.ParseUint(kb, 10, 64)
		return n * 1024, err
	}
	return 0, errors.Join(errors.New("no VmRSS line"), sc.Err())
}

// mib formats bytes in MiB.
func mib(bytes float64) string { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }
