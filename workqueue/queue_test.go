package workqueue

import (
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
	"github.com/go-logr/logr/funcr"
	"k8s.io/utils/clock"
)

func TestAddCoalescesQueuedKey(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Add("a")
	q.Add("b")
	q.Add("a")
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
	if got, want := getAll(t, q, 2), []string{"a", "b"}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if got := q.Len(); got != 0 {
		t.Fatalf("Len after draining = %d, want 0", got)
	}
}

func TestKeyAddedWhileInFlightIsHeldUntilDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.Add("a")
		k := mustGet(t, q)
		q.Add("a")
		if got := q.Len(); got != 0 {
			t.Fatalf("Len with a in flight = %d, want 0: a must not be ready twice", got)
		}

		got := make(chan string)
		go func() {
			k, _ := q.Get()
			got <- k
		}()
		synctest.Wait()
		select {
		case k2 := <-got:
			t.Fatalf("second worker got %q while it was in flight", k2)
		default:
		}

		q.Done(k)
		if k2 := <-got; k2 != "a" {
			t.Fatalf("after Done, Get = %q, want a", k2)
		}
		q.Done("a")
	})
}

func TestKeyNotAddedAgainIsNotHandedOutAgain(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Add("a")
	q.Done(mustGet(t, q))
	q.Add("b")
	if got := mustGet(t, q); got != "b" {
		t.Fatalf("Get = %q, want b", got)
	}
}

func TestDoneOfUnknownKeyIsIgnored(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Done("nope")
	q.Add("a")
	q.Done("a") // queued, not in flight: must stay queued
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1", got)
	}
}

// kubernetes#126027: a delayed key that is added now must be processed now
// and not a second time when the delay ends.
func TestAddAfterThenAddProcessesOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.AddAfter("k", 5*time.Hour)
		q.Add("k")
		if got := q.Len(); got != 1 {
			t.Fatalf("Len = %d, want 1", got)
		}
		q.Done(mustGet(t, q))
		time.Sleep(6 * time.Hour)
		synctest.Wait()
		if got := q.Len(); got != 0 {
			t.Fatalf("Len 6h later = %d, want 0: k was processed twice", got)
		}
	})
}

func TestReAddKeepsEarlierReadyTime(t *testing.T) {
	for _, tc := range []struct {
		name   string
		first  time.Duration
		second time.Duration
	}{
		{"later then sooner", time.Hour, time.Minute},
		{"sooner then later", time.Minute, time.Hour},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := New(Options[string]{})
				defer q.ShutDown()
				q.AddAfter("k", tc.first)
				q.AddAfter("k", tc.second)
				time.Sleep(time.Minute - time.Nanosecond)
				synctest.Wait()
				if got := q.Len(); got != 0 {
					t.Fatalf("Len just before 1m = %d, want 0", got)
				}
				time.Sleep(time.Nanosecond)
				synctest.Wait()
				if got := q.Len(); got != 1 {
					t.Fatalf("Len at 1m = %d, want 1", got)
				}
				q.Done(mustGet(t, q))
				time.Sleep(2 * time.Hour)
				synctest.Wait()
				if got := q.Len(); got != 0 {
					t.Fatalf("Len after 2h = %d, want 0: one entry per key", got)
				}
			})
		})
	}
}

func TestAddAfterOfReadyKeyKeepsItReady(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Add("k")
	q.AddAfter("k", time.Hour)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len = %d, want 1", got)
	}
}

func TestNonPositiveDelayIsImmediate(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.AddAfter("zero", 0)
	q.AddAfter("negative", -time.Second)
	if got := q.Len(); got != 2 {
		t.Fatalf("Len = %d, want 2", got)
	}
}

func TestDelayedKeyBecomesReadyOnFakeClock(t *testing.T) {
	q, clk := newTestQueue(t, Options[string]{})
	q.AddAfter("k", time.Minute)
	testutil.Eventually(t, 10*time.Second, "the timer to wait on the clock", testutil.True(clk.HasWaiters))
	clk.Step(59 * time.Second)
	if got := q.Len(); got != 0 {
		t.Fatalf("Len before the delay = %d, want 0", got)
	}
	clk.Step(time.Second)
	if got := mustGet(t, q); got != "k" {
		t.Fatalf("Get = %q, want k", got)
	}
}

func TestDelayedAddWhileInFlightIsHeldUntilDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.Add("k")
		k := mustGet(t, q)
		q.AddAfter("k", time.Minute)
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if got := q.Len(); got != 0 {
			t.Fatalf("Len with k in flight = %d, want 0", got)
		}
		q.Done(k)
		if got := q.Len(); got != 1 {
			t.Fatalf("Len after Done = %d, want 1", got)
		}
	})
}

func TestDoneLeavesADelayedReAddDelayed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.Add("k")
		k := mustGet(t, q)
		q.AddAfter("k", time.Minute)
		q.Done(k)
		if got := q.Len(); got != 0 {
			t.Fatalf("Len right after Done = %d, want 0", got)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := q.Len(); got != 1 {
			t.Fatalf("Len after the delay = %d, want 1", got)
		}
	})
}

func TestAddRateLimitedUsesTheLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{
			RateLimiter: NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Hour),
		})
		defer q.ShutDown()
		for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
			start := time.Now()
			q.AddRateLimited("k")
			k := mustGet(t, q)
			if waited := time.Since(start); waited != want {
				t.Fatalf("retry %d waited %v, want %v", i, waited, want)
			}
			q.Done(k)
		}
		if got := q.NumRequeues("k"); got != 3 {
			t.Fatalf("NumRequeues = %d, want 3", got)
		}
		q.Forget("k")
		if got := q.NumRequeues("k"); got != 0 {
			t.Fatalf("NumRequeues after Forget = %d, want 0", got)
		}
	})
}

func TestAddWithOptsRateLimitedAndAfterTakesTheLonger(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{
			RateLimiter: NewTypedItemFastSlowRateLimiter[string](time.Second, time.Minute, 1),
		})
		defer q.ShutDown()
		start := time.Now()
		q.AddWithOpts(AddOpts{After: 10 * time.Second, RateLimited: true}, "a")
		q.Done(mustGet(t, q))
		if waited := time.Since(start); waited != 10*time.Second {
			t.Fatalf("waited %v, want 10s (After beats the limiter's 1s)", waited)
		}
		start = time.Now()
		q.AddWithOpts(AddOpts{After: 10 * time.Second, RateLimited: true}, "a")
		q.Done(mustGet(t, q))
		if waited := time.Since(start); waited != time.Minute {
			t.Fatalf("waited %v, want 1m (the limiter's slow delay beats After)", waited)
		}
	})
}

func TestDefaultLimiterBacksOffPerKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{Clock: clock.RealClock{}})
		defer q.ShutDown()
		start := time.Now()
		q.AddRateLimited("k")
		q.AddRateLimited("k") // second failure: 10ms
		q.Done(mustGet(t, q))
		if waited := time.Since(start); waited != 5*time.Millisecond {
			t.Fatalf("first rate-limited add waited %v, want 5ms (earlier time kept)", waited)
		}
	})
}

func TestMaxRetriesDropsTheKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeProvider()
		var logged []string
		q := New(Options[string]{
			Name:            "q",
			Logger:          funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{}),
			MaxRetries:      2,
			MetricsProvider: m,
			RateLimiter:     NewTypedItemExponentialFailureRateLimiter[string](time.Millisecond, time.Second),
		})
		defer q.ShutDown()
		for range 2 {
			q.AddRateLimited("k")
			q.Done(mustGet(t, q))
		}
		q.AddRateLimited("k")
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := q.Len(); got != 0 {
			t.Fatalf("Len = %d, want 0: the third retry must be dropped", got)
		}
		if got := m.counter("q", "dropped"); got != 1 {
			t.Fatalf("dropped = %v, want 1", got)
		}
		if len(logged) != 1 || !strings.Contains(logged[0], `"key"="k"`) || !strings.Contains(logged[0], `"queue"="q"`) {
			t.Fatalf("log lines = %q, want one naming queue q and key k", logged)
		}
		if got := q.NumRequeues("k"); got != 0 {
			t.Fatalf("NumRequeues after the drop = %d, want 0 (forgotten)", got)
		}
		q.Add("k") // a real event still gets through
		if got := q.Len(); got != 1 {
			t.Fatalf("Len after a plain Add = %d, want 1", got)
		}
	})
}

func TestHugeDelayIsNotImmediate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.AddAfter("k", time.Duration(1<<63-1))
		time.Sleep(time.Hour)
		synctest.Wait()
		if got := q.Len(); got != 0 {
			t.Fatalf("Len = %d, want 0: the delay overflowed into the past", got)
		}
	})
}
