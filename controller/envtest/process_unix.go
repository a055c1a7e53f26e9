//go:build unix

package envtest

import (
	"os"
	"syscall"
)

// signalGroup sends SIGTERM, or SIGKILL if kill, to the process group that p
// leads.
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

// processExists reports whether pid names a live process; when in doubt
// (e.g. no permission to signal it) it says yes.
func processExists(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
