//go:build unix

package childproc

import (
	"os"
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
