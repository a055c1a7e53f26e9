//go:build unix

package childproc_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

// start runs script in sh, its output in a file; the Process is stopped
// when the test ends.
func start(t *testing.T, script string) (*childproc.Process, string) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "out.log")
	out, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close() // the child has its own copy
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout, cmd.Stderr = out, out
	p, err := childproc.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Kill() })
	return p, logPath
}

// waitOutput polls the child's output until it holds want.
func waitOutput(t *testing.T, logPath, want string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(logPath); strings.Contains(string(b), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child never printed %q", want)
		}
	}
}

// A child that ignores SIGTERM is killed after the grace period, and so is
// what it left running in its group.
func TestStopKillsAStubbornGroup(t *testing.T) {
	p, log := start(t, "trap '' TERM; sleep 300 & echo started; wait")
	waitOutput(t, log, "started")
	began := time.Now()
	killed, err := p.Stop(200 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !killed {
		t.Error("Stop did not report the kill of a child that ignores SIGTERM")
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Errorf("Stop took %s with a grace of 200ms", d)
	}
	if p.Running() {
		t.Error("the child runs after Stop")
	}
	if err := syscall.Kill(-p.Pid(), 0); err == nil {
		t.Errorf("process group %d still has members after Stop", p.Pid())
	}
}

// A child that exits on SIGTERM is not killed, and Err says how it ended.
func TestStopOfAPoliteChild(t *testing.T) {
	p, log := start(t, "trap 'exit 7' TERM; echo started; while :; do sleep 0.05; done")
	waitOutput(t, log, "started")
	killed, err := p.Stop(time.Minute)
	if err != nil || killed {
		t.Fatalf("Stop = %v, %v; want not killed, no error", killed, err)
	}
	var exit *exec.ExitError
	if !errors.As(p.Err(), &exit) || exit.ExitCode() != 7 {
		t.Errorf("Err() = %v, want exit status 7", p.Err())
	}
	if p.ExitedAt().IsZero() {
		t.Error("ExitedAt is zero after Stop")
	}
}

// Stopping a child that has exited already kills nothing and keeps its
// exit status.
func TestStopAfterExit(t *testing.T) {
	p, _ := start(t, "exit 3")
	<-p.Done()
	killed, err := p.Stop(time.Second)
	if err != nil || killed {
		t.Fatalf("Stop = %v, %v; want not killed, no error", killed, err)
	}
	if p.Err() == nil || !strings.Contains(p.Err().Error(), "exit status 3") {
		t.Errorf("Err() = %v, want exit status 3", p.Err())
	}
}

// Shutdown is an error when the child had to be killed or failed on
// SIGTERM, and none when it exits cleanly, dies of the SIGTERM itself, or
// had exited before.
func TestShutdownJudgesTheStop(t *testing.T) {
	for _, tc := range []struct {
		name, script, wantErr string
	}{
		{"clean", "trap 'exit 0' TERM; echo started; while :; do sleep 0.05; done", ""},
		{"failing", "trap 'exit 7' TERM; echo started; while :; do sleep 0.05; done", "exit status 7"},
		{"dies of the signal", "echo started; exec sleep 60", ""},
		{"stubborn", "trap '' TERM; echo started; while :; do sleep 0.05; done", "killed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, log := start(t, tc.script)
			waitOutput(t, log, "started")
			err := p.Shutdown(200 * time.Millisecond)
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("Shutdown = %v, want an error with %q", err, tc.wantErr)
			}
			if p.Running() {
				t.Error("the child runs after Shutdown")
			}
		})
	}
	p, _ := start(t, "exit 3")
	<-p.Done()
	if err := p.Shutdown(time.Second); err != nil {
		t.Errorf("Shutdown of a child that had exited = %v, want nil", err)
	}
}
