package workqueue

import (
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// TestMetricsManyKeysInFlight: each key's work duration is its own,
// whatever the order of Done, and the unfinished-work gauges count every
// key in flight.
func TestMetricsManyKeysInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const n = 48
		m := newFakeProvider()
		q := New(Options[string]{Name: "q", MetricsProvider: m})
		defer q.ShutDown()

		for i := range n {
			q.Add(fmt.Sprintf("k%02d", i))
		}
		// Key i is handed out at second i.
		for i := range n {
			if k := mustGet(t, q); k != fmt.Sprintf("k%02d", i) {
				t.Fatalf("Get = %q, want k%02d", k, i)
			}
			time.Sleep(time.Second)
		}
		// Now at second n, which is on the refresh period: the gauges
		// were last refreshed now.
		time.Sleep(unfinishedWorkPeriodForTest / 2)
		synctest.Wait()
		if got, want := m.counter("q", "unfinished"), float64(n*(n+1)/2); got != want {
			t.Errorf("unfinished work = %v, want %v", got, want)
		}
		if got, want := m.counter("q", "longest"), float64(n); got != want {
			t.Errorf("longest running = %v, want %v", got, want)
		}

		// Done in an order that is neither hand-out order nor its reverse.
		var want []float64
		for _, i := range scrambled(n) {
			q.Done(fmt.Sprintf("k%02d", i))
			want = append(want, float64(n-i)+unfinishedWorkPeriodForTest.Seconds()/2)
		}
		q.Done("k00") // not in flight: no observation
		if got := m.observations("q", "work"); !slices.Equal(got, want) {
			t.Errorf("work durations = %v, want %v", got, want)
		}
		if got := m.counter("q", "unfinished"); got != 0 {
			t.Errorf("unfinished work with nothing in flight = %v, want 0", got)
		}
		if got := m.counter("q", "longest"); got != 0 {
			t.Errorf("longest running with nothing in flight = %v, want 0", got)
		}
	})
}

// TestMetricsUnfinishedZeroedEachTimeIdle checks the gauges return to zero
// every time the queue has nothing in flight, not only the first.
func TestMetricsUnfinishedZeroedEachTimeIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newFakeProvider()
		q := New(Options[string]{Name: "q", MetricsProvider: m})
		defer q.ShutDown()
		for round := range 3 {
			q.Add("a")
			k := mustGet(t, q)
			time.Sleep(2 * time.Second)
			synctest.Wait()
			if got := m.counter("q", "longest"); got == 0 {
				t.Fatalf("round %d: longest running = 0 with a key in flight for 2s", round)
			}
			q.Done(k)
			if got := m.counter("q", "unfinished"); got != 0 {
				t.Fatalf("round %d: unfinished work after Done = %v, want 0", round, got)
			}
			if got := m.counter("q", "longest"); got != 0 {
				t.Fatalf("round %d: longest running after Done = %v, want 0", round, got)
			}
		}
	})
}

const unfinishedWorkPeriodForTest = time.Duration(unfinishedWorkPeriod)

// scrambled returns 0..n-1 in a fixed order that mixes old and new keys:
// the odd ones newest first, then the even ones oldest first.
func scrambled(n int) []int {
	out := make([]int, 0, n)
	for i := n - 1; i >= 0; i-- {
		if i%2 == 1 {
			out = append(out, i)
		}
	}
	for i := 0; i < n; i += 2 {
		out = append(out, i)
	}
	return out
}
