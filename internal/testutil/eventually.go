package testutil

import (
	"context"
	"testing"
	"time"
)

// maxInterval caps the backoff between polls: a condition that takes
// seconds to hold (an API server, a lease) costs ten polls a second, and one
// that holds at once (a goroutine that has not yet run) is seen within a
// millisecond.
const maxInterval = 100 * time.Millisecond

// Eventually polls cond until it returns true and fails the test once
// timeout has passed, naming what it waited for and cond's last error.
// An error from cond is a reason to keep waiting, not to stop. Polls start
// a millisecond apart and back off to maxInterval.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	var last error
	for interval := time.Millisecond; ; interval = min(2*interval, maxInterval) {
		ok, err := cond(ctx)
		if ok {
			return
		}
		if err != nil {
			last = err
		}
		select {
		case <-ctx.Done():
			if last != nil {
				t.Fatalf("timed out after %s waiting for %s (last error: %v)", timeout, what, last)
			}
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		case <-time.After(interval):
		}
	}
}

// True adapts a plain predicate to Eventually's condition.
func True(cond func() bool) func(context.Context) (bool, error) {
	return func(context.Context) (bool, error) { return cond(), nil }
}

// Consistently checks that cond returns nil at every poll for d, and fails
// the test with the first error. It asserts that a state lasts (a stuck pod
// stays unready); it is not a way to wait for something to happen.
func Consistently(t testing.TB, d time.Duration, what string, cond func(ctx context.Context) error) {
	t.Helper()
	ticker := time.NewTicker(maxInterval)
	defer ticker.Stop()
	for end := time.Now().Add(d); ; <-ticker.C {
		if err := cond(t.Context()); err != nil {
			t.Fatalf("%s stopped holding: %v", what, err)
		}
		if !time.Now().Before(end) {
			return
		}
	}
}
