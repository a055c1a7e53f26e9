//go:build unix

package envtest

import "syscall"

// processExists reports whether pid names a live process; when in doubt
// (e.g. no permission to signal it) it says yes.
func processExists(pid int) bool {
	return syscall.Kill(pid, 0) != syscall.ESRCH
}
