package childproc

import "syscall"

// SysProcAttr puts a child in its own process group (so a terminal's
// Ctrl-C reaches only the parent, which decides how the child stops) and
// has the kernel kill it if the parent dies first, so a killed test or
// benchmark leaves no orphans.
func SysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
