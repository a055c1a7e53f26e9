package testutil

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// recorder is a testing.TB that records a failure instead of ending the test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
	panic(r)
}

func run(t *testing.T, f func(tb testing.TB)) (failure string) {
	r := &recorder{TB: t}
	defer func() {
		if p := recover(); p != nil && p != any(r) {
			panic(p)
		}
		failure = r.failed
	}()
	f(r)
	return ""
}

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	var polls atomic.Int32
	got := run(t, func(tb testing.TB) {
		Eventually(tb, time.Minute, "the third poll", func(context.Context) (bool, error) {
			return polls.Add(1) == 3, nil
		})
	})
	if got != "" || polls.Load() != 3 {
		t.Fatalf("failure %q after %d polls, want none after 3", got, polls.Load())
	}
}

func TestEventuallyFailsWithTheLastError(t *testing.T) {
	got := run(t, func(tb testing.TB) {
		Eventually(tb, 20*time.Millisecond, "never", func(context.Context) (bool, error) {
			return false, errors.New("not yet")
		})
	})
	if !strings.Contains(got, "waiting for never") || !strings.Contains(got, "not yet") {
		t.Fatalf("failure %q, want it to name what it waited for and the last error", got)
	}
}

func TestConsistentlyFailsOnTheFirstError(t *testing.T) {
	var polls atomic.Int32
	got := run(t, func(tb testing.TB) {
		Consistently(tb, time.Minute, "the state", func(context.Context) error {
			if polls.Add(1) == 2 {
				return errors.New("changed")
			}
			return nil
		})
	})
	if !strings.Contains(got, "the state stopped holding: changed") {
		t.Fatalf("failure %q, want the state's first error", got)
	}
}

func TestConsistentlyPassesWhenTheStateLasts(t *testing.T) {
	var polls atomic.Int32
	got := run(t, func(tb testing.TB) {
		Consistently(tb, 250*time.Millisecond, "the state", func(context.Context) error {
			polls.Add(1)
			return nil
		})
	})
	if got != "" || polls.Load() < 2 {
		t.Fatalf("failure %q after %d polls, want none after at least 2", got, polls.Load())
	}
}
