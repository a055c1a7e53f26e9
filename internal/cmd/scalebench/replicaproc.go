package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

const (
	// replicaReadyTimeout bounds the wait for every replica to sync its
	// caches and for the ring to hand out every range: a few ring rounds.
	replicaReadyTimeout = 2 * time.Minute
	// replicaReportTimeout bounds the wait for the reports (a GC each).
	replicaReportTimeout = time.Minute
	// replicaStopTimeout is how long a replica may take to leave after
	// SIGTERM, its ring's drain bound (sharding.DefaultDrainTimeout) and
	// some; then it is killed.
	replicaStopTimeout = 45 * time.Second
)

// replicaProcess is one replica (see runReplica) run as a child process.
// Its stdout and stderr go to files, so that no pipe can hold Wait up; its
// stdin is a pipe the benchmark writes commands to, and whose end (the
// benchmark closing it, or dying) makes the replica exit.
type replicaProcess struct {
	id          string
	stdin       *os.File // the pipe's write end
	stdout, log string   // file paths
	*childproc.Process
}

// startReplica starts self as replica id with args, its files in dir.
func startReplica(self, id, dir string, args []string) (_ *replicaProcess, err error) {
	p := &replicaProcess{
		id:     id,
		stdout: filepath.Join(dir, id+".out"),
		log:    filepath.Join(dir, id+".log"),
	}
	out, err := os.Create(p.stdout)
	if err != nil {
		return nil, err
	}
	defer out.Close() // the child has its own copy
	logFile, err := os.Create(p.log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	stdinR, stdinW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer stdinR.Close()
	p.stdin = stdinW
	cmd := exec.Command(self, append([]string{replicaArg, "-id", id}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, out, logFile
	// Dies with the benchmark, even one killed with SIGKILL.
	if p.Process, err = childproc.Start(cmd); err != nil {
		stdinW.Close()
		return nil, fmt.Errorf("start replica %s: %w", id, err)
	}
	return p, nil
}

// output parses what the replica has printed so far.
func (p *replicaProcess) output() (ready bool, report *replicaReport, err error) {
	data, err := os.ReadFile(p.stdout)
	if err != nil {
		return false, nil, err
	}
	return parseReplicaOutput(data)
}

// failure describes a replica that exited: its status and its log's end.
func (p *replicaProcess) failure() error {
	tail, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimRight(string(tail), "\n"), "\n")
	lines = lines[max(0, len(lines)-20):]
	return fmt.Errorf("replica %s exited (%v); the end of %s:\n%s", p.id, p.Err(), p.log, strings.Join(lines, "\n"))
}

// stop sends SIGTERM, waits up to bound, then kills the process, and
// waits for it in any case: no replica outlives stop. Its error tells of a
// kill or of a failed exit.
func (p *replicaProcess) stop(bound time.Duration) error {
	defer p.stdin.Close()
	killed, err := p.Stop(bound)
	switch {
	case err != nil:
		return fmt.Errorf("replica %s: %w", p.id, err)
	case killed:
		return fmt.Errorf("replica %s did not exit within %s of SIGTERM; killed", p.id, bound)
	case p.Err() != nil:
		return p.failure()
	}
	return nil
}

// replicaGroup is the ring's replicas of one run.
type replicaGroup []*replicaProcess

// startReplicas starts n replicas of our Deployment controller against the
// control plane of kubeconfig, with cfg's workers, client rate limit and
// GC percent each, their files in dir.
func startReplicas(cfg config, kubeconfig string, n int, dir string) (replicaGroup, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{
		"-kubeconfig", kubeconfig, "-members", fmt.Sprint(n),
		"-workers", fmt.Sprint(cfg.workers), "-qps", fmt.Sprint(cfg.qps), "-burst", fmt.Sprint(cfg.burst),
		"-gogc", fmt.Sprint(cfg.gogc),
	}
	var g replicaGroup
	for i := range n {
		p, err := startReplica(self, fmt.Sprintf("replica-%d", i), dir, args)
		if err != nil {
			return nil, errors.Join(err, g.stop(replicaStopTimeout))
		}
		g = append(g, p)
	}
	return g, nil
}

// waitReady waits until every replica has printed its ready line.
func (g replicaGroup) waitReady(ctx context.Context, timeout time.Duration) error {
	return g.poll(ctx, timeout, "ready", func(p *replicaProcess) (bool, error) {
		ready, _, err := p.output()
		return ready, err
	})
}

// reports asks every replica for its report and returns them in ID order.
func (g replicaGroup) reports(ctx context.Context, timeout time.Duration) ([]replicaReport, error) {
	for _, p := range g {
		if _, err := fmt.Fprintln(p.stdin, reportCommand); err != nil {
			return nil, fmt.Errorf("ask replica %s for its report: %w", p.id, err)
		}
	}
	reports := make(map[string]replicaReport, len(g))
	err := g.poll(ctx, timeout, "report", func(p *replicaProcess) (bool, error) {
		_, r, err := p.output()
		if r != nil {
			reports[p.id] = *r
		}
		return r != nil, err
	})
	if err != nil {
		return nil, err
	}
	out := make([]replicaReport, 0, len(g))
	for _, p := range g {
		out = append(out, reports[p.id])
	}
	slices.SortFunc(out, func(a, b replicaReport) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// poll checks done for every replica every 100ms until all are done; a
// replica that exits first, an error, ctx or timeout end it.
func (g replicaGroup) poll(ctx context.Context, timeout time.Duration, what string, done func(*replicaProcess) (bool, error)) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var waiting []string
		for _, p := range g {
			ok, err := done(p)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
			select {
			case <-p.Done():
				return p.failure()
			default:
			}
			waiting = append(waiting, p.id)
		}
		if len(waiting) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline.C:
			return fmt.Errorf("no %s from %s after %s", what, strings.Join(waiting, ", "), timeout)
		case <-tick.C:
		}
	}
}

// stop stops every replica at once (see replicaProcess.stop).
func (g replicaGroup) stop(bound time.Duration) error {
	errs := make([]error, len(g))
	done := make(chan struct{})
	for i, p := range g {
		go func() {
			errs[i] = p.stop(bound)
			done <- struct{}{}
		}()
	}
	for range g {
		<-done
	}
	return errors.Join(errs...)
}
