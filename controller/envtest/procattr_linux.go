package envtest

import "syscall"

// childProcAttr puts a child in its own process group (so a terminal's Ctrl-C
// reaches only us, and we decide how the child stops) and has the kernel kill
// it if our process dies first, so a killed test leaves no orphans.
func childProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
