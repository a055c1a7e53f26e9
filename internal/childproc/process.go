package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// reapBound is how long Stop and Kill wait for a child, and then for its
// group, after SIGKILL: only a process stuck in the kernel takes longer.
const reapBound = 30 * time.Second

// Process is a child started by Start. A goroutine waits for it, so that
// its exit can be selected on (Done) and stopping it can be bounded (Stop).
// The child leads a process group of its own (SysProcAttr), and Stop and
// Kill signal that group: what the child forked goes with it.
//
// Its output should go to files, not pipes: a pipe nobody reads can hold
// the child, or its Wait, forever.
type Process struct {
	cmd      *exec.Cmd
	done     chan struct{} // closed once the child has been reaped
	err      error         // Wait's error; valid once done is closed
	exitedAt time.Time     // when Wait returned; valid once done is closed
}

// Start starts cmd with SysProcAttr and reaps it in the background.
func Start(cmd *exec.Cmd) (*Process, error) {
	cmd.SysProcAttr = SysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		p.exitedAt = time.Now()
		close(p.done)
	}()
	return p, nil
}

// Pid is the child's process ID, which is also its group's ID.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Done is closed once the child has exited and been reaped.
func (p *Process) Done() <-chan struct{} { return p.done }

// Running reports whether the child has not exited yet.
func (p *Process) Running() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// Err is how the child exited, Wait's error (nil for a zero exit status);
// valid once Done is closed.
func (p *Process) Err() error { return p.err }

// ExitedAt is when the child was reaped; valid once Done is closed.
func (p *Process) ExitedAt() time.Time { return p.exitedAt }

// Stop sends SIGTERM to the child's group, SIGKILL if the child has not
// exited within grace, and returns once the child has been reaped and its
// group is empty. killed reports that the child outlived grace; err, that
// the child or its group outlived SIGKILL too. How the child exited is
// Err's. Stopping a child that has exited already only empties its group.
func (p *Process) Stop(grace time.Duration) (killed bool, err error) {
	if p.Running() {
		_ = signalGroup(p.cmd.Process, false)
		timer := time.NewTimer(grace)
		defer timer.Stop()
		select {
		case <-p.done:
		case <-timer.C:
			killed = true
		}
	}
	return killed, p.Kill()
}

// Shutdown stops the child as Stop does and says whether it went as a
// graceful stop should: an error if the child outlived grace and was
// killed, if it or its group outlived SIGKILL, or if it exited with a
// failure after SIGTERM. Dying of the SIGTERM itself is a graceful stop:
// it is what a program without a handler for it does (kube-controller-
// manager among them). A child that had exited before Shutdown is no
// error here (its group is emptied all the same): how it ended is Err's,
// for the caller to judge, since a test may have killed it on purpose.
func (p *Process) Shutdown(grace time.Duration) error {
	if !p.Running() {
		return p.Kill()
	}
	killed, err := p.Stop(grace)
	switch {
	case err != nil:
		return err
	case killed:
		return fmt.Errorf("pid %d did not exit within %s of SIGTERM: killed", p.Pid(), grace)
	case p.Err() != nil && !diedOfSIGTERM(p.Err()):
		return fmt.Errorf("pid %d exited after SIGTERM: %w", p.Pid(), p.Err())
	}
	return nil
}

// Kill sends SIGKILL to the child's group and returns once the child has
// been reaped and nothing is left in its group, or with an error after a
// generous bound.
func (p *Process) Kill() error {
	_ = signalGroup(p.cmd.Process, true)
	select {
	case <-p.done:
	case <-time.After(reapBound):
		return fmt.Errorf("pid %d still running %s after SIGKILL", p.Pid(), reapBound)
	}
	// The leader is gone; kill anything it left in its group.
	deadline := time.Now().Add(reapBound)
	for groupAlive(p.Pid()) {
		_ = signalGroup(p.cmd.Process, true)
		if time.Now().After(deadline) {
			return fmt.Errorf("process group %d still has members %s after SIGKILL", p.Pid(), reapBound)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// KillGroup sends SIGKILL to the group that process leads (to process
// alone where there are no groups): an exec.Cmd's Cancel, for a command
// started with SysProcAttr, so that cancelling also stops what it forked.
func KillGroup(process *os.Process) error { return signalGroup(process, true) }
