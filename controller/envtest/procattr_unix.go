//go:build unix && !linux

package envtest

import "syscall"

// childProcAttr puts a child in its own process group, so that stopping it
// stops everything it forked. Without Linux's Pdeathsig, a child outlives a
// parent that is killed with SIGKILL; Stop and signal handling cover the rest.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
