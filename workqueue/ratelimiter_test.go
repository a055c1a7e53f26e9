package workqueue

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"golang.org/x/time/rate"
	clocktesting "k8s.io/utils/clock/testing"
)

func whens(l TypedRateLimiter[string], key string, n int) []time.Duration {
	var out []time.Duration
	for range n {
		out = append(out, l.When(key))
	}
	return out
}

func TestItemExponentialFailureRateLimiter(t *testing.T) {
	l := NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, 10*time.Millisecond)
	want := []time.Duration{1, 2, 4, 8, 10, 10}
	for i := range want {
		want[i] *= time.Millisecond
	}
	if got := whens(l, "a", 6); !slices.Equal(got, want) {
		t.Fatalf("delays = %v, want %v", got, want)
	}
	if got := l.When("b"); got != time.Millisecond {
		t.Fatalf("other key's first delay = %v, want 1ms", got)
	}
	if got := l.NumRequeues("a"); got != 6 {
		t.Fatalf("NumRequeues = %d, want 6", got)
	}
	l.Forget("a")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
	if got := l.When("a"); got != time.Millisecond {
		t.Fatalf("delay after Forget = %v, want 1ms", got)
	}
}

func TestItemExponentialFailureRateLimiterDoesNotOverflow(t *testing.T) {
	l := NewTypedItemExponentialFailureRateLimiter[string](time.Second, 1<<62)
	var last time.Duration
	for i := range 200 {
		d := l.When("a")
		if d < last || d <= 0 {
			t.Fatalf("delay %d = %v after %v: overflowed", i, d, last)
		}
		last = d
	}
	if last != 1<<62 {
		t.Fatalf("final delay = %v, want the cap", last)
	}
}

func TestItemFastSlowRateLimiter(t *testing.T) {
	l := NewTypedItemFastSlowRateLimiter[string](time.Millisecond, time.Second, 2)
	want := []time.Duration{time.Millisecond, time.Millisecond, time.Second, time.Second}
	if got := whens(l, "a", 4); !slices.Equal(got, want) {
		t.Fatalf("delays = %v, want %v", got, want)
	}
	if got := l.NumRequeues("a"); got != 4 {
		t.Fatalf("NumRequeues = %d, want 4", got)
	}
	l.Forget("a")
	if got := l.When("a"); got != time.Millisecond {
		t.Fatalf("delay after Forget = %v, want fast", got)
	}
}

func TestMaxOfRateLimiter(t *testing.T) {
	l := NewTypedMaxOfRateLimiter(
		NewTypedItemFastSlowRateLimiter[string](5*time.Millisecond, 3*time.Second, 3),
		NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
	)
	want := []time.Duration{5 * time.Millisecond, 5 * time.Millisecond, 5 * time.Millisecond, 3 * time.Second, 3 * time.Second}
	if got := whens(l, "a", 5); !slices.Equal(got, want) {
		t.Fatalf("delays = %v, want %v", got, want)
	}
	if got := l.NumRequeues("a"); got != 5 {
		t.Fatalf("NumRequeues = %d, want 5", got)
	}
	l.Forget("a")
	if got := l.NumRequeues("a"); got != 0 {
		t.Fatalf("NumRequeues after Forget = %d, want 0", got)
	}
}

func TestBucketRateLimiterCapsTheDelay(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_000_000, 0))
	l := NewTypedBucketRateLimiter[string](rate.NewLimiter(10, 2), 500*time.Millisecond)
	l.Clock = clk

	var got []time.Duration
	for range 10 {
		got = append(got, l.When("any"))
	}
	// Two from the burst, then one per 100ms up to the 500ms cap; the rest
	// are capped and take no token.
	ms := time.Millisecond
	want := []time.Duration{0, 0, 100 * ms, 200 * ms, 300 * ms, 400 * ms, 500 * ms, 500 * ms, 500 * ms, 500 * ms}
	if !slices.Equal(got, want) {
		t.Fatalf("delays = %v, want %v", got, want)
	}

	// Only the five uncapped adds booked tokens (due at 100ms..500ms): at
	// 500ms the next one waits 100ms. Had the four capped adds booked
	// theirs too, it would wait the cap.
	clk.SetTime(clk.Now().Add(500 * time.Millisecond))
	if d := l.When("any"); d != 100*time.Millisecond {
		t.Fatalf("delay at 500ms = %v, want 100ms", d)
	}
	if n := l.NumRequeues("any"); n != 0 {
		t.Fatalf("NumRequeues = %d, want 0", n)
	}
}

func TestBucketRateLimiterWithoutCapBehavesLikeClientGo(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(time.Unix(1_000_000, 0))
	l := NewTypedBucketRateLimiter[string](rate.NewLimiter(10, 1), 0)
	l.Clock = clk
	for range 100 {
		l.When("a")
	}
	if d := l.When("a"); d != 10*time.Second {
		t.Fatalf("101st delay = %v, want 10s (uncapped)", d)
	}
}

func TestDefaultControllerRateLimiter(t *testing.T) {
	l := DefaultTypedControllerRateLimiter[string]()
	if d := l.When("a"); d != 5*time.Millisecond {
		t.Fatalf("first delay = %v, want 5ms", d)
	}
	if d := l.When("a"); d != 10*time.Millisecond {
		t.Fatalf("second delay = %v, want 10ms", d)
	}
	if n := l.NumRequeues("a"); n != 2 {
		t.Fatalf("NumRequeues = %d, want 2", n)
	}
	for i := range 1000 {
		if d := l.When(fmt.Sprint("burst", i)); d > DefaultBucketMaxDelay+time.Second {
			t.Fatalf("delay %v exceeds the bucket cap", d)
		}
	}
}

// TestFailureCountsAcrossForgettingEveryKey: counting resumes once a key
// fails again after every key was forgotten, and forgetting one key leaves
// the others.
func TestFailureCountsAcrossForgettingEveryKey(t *testing.T) {
	l := NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second)
	l.Forget("never-failed") // nothing counted: must not disturb anything
	l.When("a")
	l.When("b")
	l.When("b")
	l.Forget("a")
	if got := l.NumRequeues("b"); got != 2 {
		t.Fatalf("NumRequeues(b) after Forget(a) = %d, want 2", got)
	}
	l.Forget("b")
	if got := l.NumRequeues("b"); got != 0 {
		t.Fatalf("NumRequeues(b) after forgetting every key = %d, want 0", got)
	}
	if got := whens(l, "a", 2); !slices.Equal(got, []time.Duration{time.Millisecond, 2 * time.Millisecond}) {
		t.Fatalf("delays after forgetting every key = %v, want 1ms then 2ms", got)
	}
	if got := l.NumRequeues("a"); got != 2 {
		t.Fatalf("NumRequeues(a) = %d, want 2", got)
	}
}
