//go:build !unix

package childproc

import "syscall"

// SysProcAttr has nothing to add where there are no process groups.
func SysProcAttr() *syscall.SysProcAttr { return nil }
