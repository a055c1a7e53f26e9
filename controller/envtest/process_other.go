//go:build !unix

package envtest

import (
	"os"
)

// signalGroup kills the process; without process groups there is no gentle
// signal to send.
func signalGroup(p *os.Process, _ bool) error { return p.Kill() }

// groupAlive cannot be told without process groups; the reaped leader is all
// there is.
func groupAlive(int) bool { return false }

// processExists cannot be told cheaply here, so it always says yes: no
// leftover directory is removed.
func processExists(int) bool { return true }
