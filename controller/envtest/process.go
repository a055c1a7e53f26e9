package envtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/childproc"
)

// process is one running component. Its output goes to <dir>/<name>.log.
type process struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed once the process has been reaped
	waitErr error         // valid after done is closed
}

// startProcess starts bin in a process group of its own, so that stopping it
// also stops anything it forked, and (on Linux) so that it dies with us.
func startProcess(dir, name, bin string, args, env []string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = childproc.SysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &process{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		_ = logFile.Close()
		close(p.done)
	}()
	return p, nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// exitError describes an early exit, with the end of the log, which
// usually says why.
func (p *process) exitError() error {
	return fmt.Errorf("%s exited: %v\n--- last lines of %s ---\n%s", p.name, p.waitErr, p.logPath, p.logTail(25))
}

// stop asks the process group to terminate, kills it after grace, and returns
// only when the process has been reaped and its group is empty (or after a
// generous timeout, with an error naming the survivor).
func (p *process) stop(grace time.Duration) error {
	pid := p.cmd.Process.Pid
	_ = signalGroup(p.cmd.Process, false)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = signalGroup(p.cmd.Process, true)
		select {
		case <-p.done:
		case <-time.After(30 * time.Second):
			return fmt.Errorf("%s (pid %d) still running 30s after SIGKILL", p.name, pid)
		}
	}
	// The leader is gone; kill anything it left in its group.
	deadline := time.Now().Add(10 * time.Second)
	for groupAlive(pid) {
		_ = signalGroup(p.cmd.Process, true)
		if time.Now().After(deadline) {
			return fmt.Errorf("process group of %s (pgid %d) still has members", p.name, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// logTail returns the last n lines of the process's log.
func (p *process) logTail(n int) string {
	data, err := os.ReadFile(p.logPath)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return string(bytes.Join(lines, []byte("\n")))
}

// stopAll stops the processes concurrently and joins their errors.
func stopAll(procs []*process, grace time.Duration) error {
	errs := make(chan error, len(procs))
	for _, p := range procs {
		go func() { errs <- p.stop(grace) }()
	}
	var all []error
	for range procs {
		if err := <-errs; err != nil {
			all = append(all, err)
		}
	}
	return errors.Join(all...)
}

// commandLine renders a command for logs.
func commandLine(bin string, args []string) string {
	return filepath.Base(bin) + " " + strings.Join(args, " ")
}
