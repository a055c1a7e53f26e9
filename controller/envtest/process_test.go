//go:build unix

package envtest

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStopKillsWholeGroup(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("no sh: %v", err)
	}
	dir := t.TempDir()
	// The shell ignores SIGTERM and leaves a background child: stop must
	// escalate to SIGKILL and reap the child too.
	p, err := startProcess(dir, "stubborn", sh, []string{"-c", "trap '' TERM; sleep 300 & echo started; wait"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(p.logTail(5), "started") {
		if time.Now().After(deadline) {
			t.Fatalf("shell did not start; log: %s", p.logTail(5))
		}
		time.Sleep(10 * time.Millisecond)
	}
	pgid := p.cmd.Process.Pid
	if err := p.stop(200 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !p.exited() {
		t.Error("process not reaped after stop")
	}
	if err := syscall.Kill(-pgid, 0); err == nil {
		t.Errorf("process group %d still has members after stop", pgid)
	}
}

func TestExitErrorIncludesLogTail(t *testing.T) {
	p, err := startProcess(t.TempDir(), "failing", "/bin/sh", []string{"-c", "echo listen tcp: address already in use; exit 3"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	<-p.done
	msg := p.exitError().Error()
	for _, want := range []string{"failing exited", "exit status 3", "address already in use"} {
		if !strings.Contains(msg, want) {
			t.Errorf("exit error %q lacks %q", msg, want)
		}
	}
	if err := p.stop(time.Second); err != nil {
		t.Errorf("stop of an exited process: %v", err)
	}
}
