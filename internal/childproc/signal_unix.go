//go:build unix

package childproc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// signalGroup sends SIGTERM, or SIGKILL if kill, to the process group that
// p leads.
func signalGroup(p *os.Process, kill bool) error {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	return syscall.Kill(-p.Pid, sig)
}

// groupAlive reports whether the process group pgid still has members.
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}

// diedOfSIGTERM reports whether err, a child's Wait error, says that the
// child was ended by SIGTERM.
func diedOfSIGTERM(err error) bool {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return false
	}
	status, ok := exit.Sys().(syscall.WaitStatus)
	return ok && status.Signaled() && status.Signal() == syscall.SIGTERM
}
