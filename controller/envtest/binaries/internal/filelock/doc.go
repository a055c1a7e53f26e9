// Package filelock is the lock that keeps concurrent processes (the test
// binaries of one go test ./...) from building the same binaries twice:
// Lock waits for it, polling, until ctx ends.
package filelock

import "time"

// pollInterval is how often a waiting Lock tries again.
const pollInterval = 250 * time.Millisecond
