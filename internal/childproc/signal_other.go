//go:build !unix

package childproc

import "os"

// signalGroup kills p: without process groups or SIGTERM there is no
// gentler way, and nothing else to signal.
func signalGroup(p *os.Process, _ bool) error { return p.Kill() }

// groupAlive cannot be told without process groups; the reaped leader is
// all there is.
func groupAlive(int) bool { return false }

// diedOfSIGTERM is false: without SIGTERM a child never dies of it.
func diedOfSIGTERM(error) bool { return false }
