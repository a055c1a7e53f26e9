//go:build unix && !linux

package childproc

import "syscall"

// SysProcAttr puts a child in its own process group, so that stopping the
// group stops everything it forked. Without Linux's Pdeathsig, a child
// outlives a parent killed with SIGKILL; the parent's Stop and signal
// handling cover the rest.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
