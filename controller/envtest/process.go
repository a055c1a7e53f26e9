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
	logPath string
	*childproc.Process
}

// startProcess starts bin in a process group of its own, so that stopping it
// also stops anything it forked, and (on Linux) so that it dies with us.
func startProcess(dir, name, bin string, args, env []string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child has its own copy
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	child, err := childproc.Start(cmd)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	return &process{name: name, logPath: logPath, Process: child}, nil
}

// exitError describes an early exit, with the end of the log, which
// usually says why.
func (p *process) exitError() error {
	return fmt.Errorf("%s exited: %v\n--- last lines of %s ---\n%s", p.name, p.Err(), p.logPath, p.logTail(25))
}

// stop asks the process group to terminate, kills it after grace, and returns
// only when the process has been reaped and its group is empty (or after a
// generous timeout, with an error naming the survivor). A component killed
// after grace is no error: its state is thrown away with the directory.
func (p *process) stop(grace time.Duration) error {
	if _, err := p.Stop(grace); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
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
