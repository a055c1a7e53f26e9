package gobuild

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

// Program is one program to build: the name it gets, and its main package.
type Program struct{ Name, Pkg string }

// progressEvery is how often a running build says how far it is.
const progressEvery = 30 * time.Second

// Build builds progs into dir in one go build run in src, with ldflags.
// One go build for every program: the packages they share (client-go,
// apimachinery, the API types, grpc, ...) compile once, and the go command
// keeps every core busy across programs. The outputs go to a temporary
// folder in dir and are renamed into place once go build is done, so a
// half-finished build never leaves a program behind. log gets the modules
// go downloads, each program when it is linked, and every 30 s the
// elapsed time, the packages compiled so far and the latest of them.
func Build(ctx context.Context, gocmd, src, dir string, progs []Program, ldflags string, log io.Writer) error {
	names := make([]string, len(progs))
	pkgs := make([]string, len(progs))
	for i, p := range progs {
		names[i], pkgs[i] = p.Name, p.Pkg
	}
	out, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	args := append([]string{"build", "-v", "-trimpath", "-ldflags", ldflags, "-o", out + string(filepath.Separator)}, pkgs...)
	start := time.Now()
	linked := map[string]bool{}
	report := func(p Program, at time.Duration) {
		linked[p.Name] = true
		fmt.Fprintf(log, "envtest: [%d/%d] built %s (%s)\n", len(linked), len(progs), p.Name, at.Round(time.Second))
	}
	var lastReport time.Duration
	err = run(ctx, gocmd, src, args, log, func(elapsed time.Duration, st status) {
		// A program's file appears in out when its link is done.
		for _, p := range progs {
			if !linked[p.Name] && exists(filepath.Join(out, OutName(p.Pkg))) {
				report(p, elapsed)
			}
		}
		if elapsed-lastReport < progressEvery {
			return
		}
		lastReport = elapsed
		var left []string
		for _, p := range progs {
			if !linked[p.Name] {
				left = append(left, p.Name)
			}
		}
		fmt.Fprintf(log, "envtest:        still building %s: %s; %d packages compiled, latest %s\n",
			strings.Join(left, ", "), elapsed.Round(time.Second), st.packages, st.latest)
	})
	if err != nil {
		return fmt.Errorf("build %s: %w", strings.Join(names, ", "), err)
	}
	for _, p := range progs {
		if !linked[p.Name] {
			report(p, time.Since(start))
		}
		if err := os.Rename(filepath.Join(out, OutName(p.Pkg)), filepath.Join(dir, ExeName(p.Name))); err != nil {
			return err
		}
	}
	return nil
}

// status is what go build -v has said so far: how many packages it
// compiled, and the latest.
type status struct {
	packages int
	latest   string
}

// run runs the go command in src, copying "go: downloading" lines to log
// so a fresh machine shows what it fetches, calling tick every second
// while it runs, and returning the end of its output on failure.
func run(ctx context.Context, gocmd, src string, args []string, log io.Writer, tick func(time.Duration, status)) error {
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Dir = src
	cmd.Env = env()
	cmd.SysProcAttr = childproc.SysProcAttr()
	// Cancelling kills the compilers go started too, not only go itself.
	cmd.Cancel = func() error { return childproc.KillGroup(cmd.Process) }
	out, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	cmd.Stdout = cmd.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	var (
		mu   sync.Mutex
		st   status
		tail []string
	)
	scanDone := make(chan struct{})
	go func() {
		defer close(scanDone)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "go: downloading") {
				fmt.Fprintf(log, "envtest:        %s\n", line)
			}
			mu.Lock()
			if isPackageLine(line) {
				st.packages++
				st.latest = line
			} else { // what a failure shows: messages, not progress
				tail = append(tail, line)
				if len(tail) > 40 {
					tail = tail[1:]
				}
			}
			mu.Unlock()
		}
	}()
	start := time.Now()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	waited := make(chan error, 1)
	go func() {
		<-scanDone
		waited <- cmd.Wait()
	}()
	for {
		select {
		case err := <-waited:
			if ctx.Err() != nil {
				return fmt.Errorf("go %s: stopped: %w", args[0], context.Cause(ctx))
			}
			if err != nil {
				mu.Lock()
				defer mu.Unlock()
				return fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, strings.Join(tail, "\n"))
			}
			return nil
		case <-ticker.C:
			mu.Lock()
			now := st
			mu.Unlock()
			tick(time.Since(start), now)
		}
	}
}

// isPackageLine says whether a line of go build -v's output names a
// package it compiled: an import path alone, where messages have spaces
// and compile errors start with "#".
func isPackageLine(line string) bool {
	return line != "" && !strings.ContainsAny(line, " \t") && !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "go:")
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }
