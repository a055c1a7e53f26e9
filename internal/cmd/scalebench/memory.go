package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// memSample is a process's memory over a settle window, in bytes: its
// RSS (process_resident_memory_bytes) at the start and the end, and at
// the end, just after a forced GC, its heap_inuse and its heap_alloc (the
// live objects; heap_inuse less heap_alloc is the room in-use spans have
// free, which an idle process keeps).
type memSample struct{ rssFirst, rssLast, heapInuse, heapAlloc float64 }

// memoryResult is what the memory mode measures of one controller in one
// run: the process that made the burst, and another started on the same
// objects.
type memoryResult struct{ burst, restart memSample }

// measureMemory is the memory mode's part of a run, once the burst is
// over and the writes have stopped: it samples burst, the process that
// made it, stops it, then starts another with restart (logging under
// dir/restart) and samples that. One at a time: no two Deployment
// controllers run together. Both heap profiles go to dir.
func measureMemory(ctx context.Context, cfg config, dir string, burst *process, restart func(context.Context, string) (*process, error), log io.Writer) (res memoryResult, err error) {
	sample := func(p *process, label string) (memSample, error) {
		fmt.Fprintf(log, "scalebench memory: %s %s: waiting until it is idle, then sampling for %s\n", p.name, label, cfg.settle)
		s, err := sampleMemory(ctx, p, cfg.deployments, cfg.settle, filepath.Join(dir, "heap-"+label+".pb.gz"))
		if err != nil {
			return s, fmt.Errorf("%s: %w", label, err)
		}
		fmt.Fprintf(log, "scalebench memory: %s %s: RSS %s / %s, heap_inuse %s, heap_alloc %s\n",
			p.name, label, mib(s.rssFirst), mib(s.rssLast), mib(s.heapInuse), mib(s.heapAlloc))
		return s, nil
	}
	if res.burst, err = sample(burst, "burst"); err != nil {
		return res, err
	}
	if err := burst.stop(); err != nil {
		return res, err
	}
	restartDir := filepath.Join(dir, "restart")
	if err := os.MkdirAll(restartDir, 0o755); err != nil {
		return res, err
	}
	again, err := restart(ctx, restartDir)
	if err != nil {
		return res, fmt.Errorf("restart: %w", err)
	}
	res.restart, err = sample(again, "restart")
	return res, errors.Join(err, again.stop())
}

// idleTimeout bounds the wait for a process to work through its queue.
const idleTimeout = 10 * time.Minute

// sampleMemory waits until p's Deployment queue has taken at least n adds
// (a restarted controller queues every Deployment once its caches sync)
// and is empty, reads its RSS, forces a GC (through the heap profile's
// gc=1) so that the burst's garbage does not count, waits out settle,
// then takes a heap profile (after another GC) into profile, and reads
// the heap and the RSS again.
func sampleMemory(ctx context.Context, p *process, n int, settle time.Duration, profile string) (s memSample, err error) {
	var m metricFamilies
	err = wait.PollUntilContextTimeout(ctx, time.Second, idleTimeout, true, func(ctx context.Context) (bool, error) {
		var scrapeErr error // retried: a restarted process may not serve yet
		m, scrapeErr = p.metrics(ctx)
		return scrapeErr == nil && deploymentQueue(m, "workqueue_adds_total") >= float64(n) && deploymentQueue(m, "workqueue_depth") == 0, nil
	})
	if err != nil {
		return s, fmt.Errorf("not idle: %v adds, depth %v: %w", deploymentQueue(m, "workqueue_adds_total"), deploymentQueue(m, "workqueue_depth"), err)
	}
	s.rssFirst = m.value("process_resident_memory_bytes")
	if _, err := p.get(ctx, "/debug/pprof/heap?gc=1"); err != nil {
		return s, err
	}
	select {
	case <-ctx.Done():
		return s, ctx.Err()
	case <-time.After(settle):
	}
	heap, err := p.get(ctx, "/debug/pprof/heap?gc=1")
	if err == nil {
		err = os.WriteFile(profile, heap, 0o644)
	}
	if err == nil {
		m, err = p.metrics(ctx)
	}
	s.rssLast, s.heapInuse, s.heapAlloc = m.value("process_resident_memory_bytes"), m.value("go_memstats_heap_inuse_bytes"), m.value("go_memstats_heap_alloc_bytes")
	if err == nil && (s.rssFirst == 0 || s.rssLast == 0 || s.heapInuse == 0 || s.heapAlloc == 0) {
		err = fmt.Errorf("%s does not expose the process collector's and the Go collector's metrics", p.name)
	}
	return s, err
}

// deploymentQueue sums a workqueue metric's series for the "deployment"
// queue (ours labels them by priority too).
func deploymentQueue(m metricFamilies, name string) float64 {
	sum := 0.0
	for _, s := range m[name].GetMetric() {
		for _, l := range s.GetLabel() {
			if l.GetName() == "name" && l.GetValue() == "deployment" {
				sum += s.GetGauge().GetValue() + s.GetCounter().GetValue()
			}
		}
	}
	return sum
}

// mib formats bytes in MiB.
func mib(bytes float64) string { return fmt.Sprintf("%.1f MiB", bytes/(1<<20)) }
