package workqueue

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestHigherPriorityFirstFIFOWithin(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "low1", "low2")
	q.Add("n1")
	q.AddWithOpts(AddOpts{Priority: 10}, "high1")
	q.Add("n2")
	q.AddWithOpts(AddOpts{Priority: 10}, "high2")

	var got []string
	var prios []int
	for range 6 {
		k, p, shutdown := q.GetWithPriority()
		if shutdown {
			t.Fatal("unexpected shutdown")
		}
		got = append(got, k)
		prios = append(prios, p)
		q.Done(k)
	}
	if want := []string{"high1", "high2", "n1", "n2", "low1", "low2"}; !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	if want := []int{10, 10, 0, 0, PriorityLow, PriorityLow}; !slices.Equal(prios, want) {
		t.Fatalf("priorities = %v, want %v", prios, want)
	}
}

func TestReAddKeepsHigherPriority(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "a", "b")
	q.Add("b")                                         // raised: served first
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "b") // not lowered
	q.AddWithOpts(AddOpts{Priority: 5, After: time.Hour}, "c")
	q.Add("c") // ready now, keeps priority 5
	if got := q.Len(); got != 3 {
		t.Fatalf("Len = %d, want 3", got)
	}
	var got []string
	for range 3 {
		k, p, _ := q.GetWithPriority()
		got = append(got, fmt.Sprintf("%s@%d", k, p))
		q.Done(k)
	}
	if want := []string{"c@5", "b@0", "a@-100"}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestDelayedKeyKeepsHigherPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := New(Options[string]{})
		defer q.ShutDown()
		q.AddWithOpts(AddOpts{After: time.Minute, Priority: 7}, "k")
		q.AddWithOpts(AddOpts{After: time.Hour, Priority: PriorityLow}, "k")
		q.Add("n")
		time.Sleep(time.Minute)
		synctest.Wait()
		k, p, _ := q.GetWithPriority()
		if k != "k" || p != 7 {
			t.Fatalf("Get = %s@%d, want k@7", k, p)
		}
		q.Done(k)
	})
}

func TestPriorityOfHeldKeyIsKept(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Add("k")
	k := mustGet(t, q)
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "k")
	q.AddWithOpts(AddOpts{Priority: 3}, "k")
	q.Add("other")
	q.Done(k)
	k2, p, _ := q.GetWithPriority()
	if k2 != "k" || p != 3 {
		t.Fatalf("Get = %s@%d, want k@3", k2, p)
	}
}

func TestExtremePrioritiesAreClamped(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.AddWithOpts(AddOpts{Priority: -1 << 62}, "min")
	q.AddWithOpts(AddOpts{Priority: 1 << 62}, "max")
	k, p, _ := q.GetWithPriority()
	if k != "max" || p != 1<<31-1 {
		t.Fatalf("Get = %s@%d, want max@%d", k, p, 1<<31-1)
	}
	k, p, _ = q.GetWithPriority()
	if k != "min" || p != -1<<31 {
		t.Fatalf("Get = %s@%d, want min@%d", k, p, -1<<31)
	}
}

// A steady stream of normal-priority work must not starve a low-priority
// key (controller-runtime#3496).
func TestLowPriorityDoesNotStarve(t *testing.T) {
	const limit = 50
	q, _ := newTestQueue(t, Options[string]{StarvationLimit: limit})
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "low")
	for i := range limit + agedShare + 1 {
		// Always one normal key ahead of the low one.
		q.Add(fmt.Sprintf("n%d", i))
		k := mustGet(t, q)
		q.Done(k)
		if k == "low" {
			if i < limit {
				t.Fatalf("low served after %d hand-outs, before its starvation limit %d", i, limit)
			}
			return
		}
	}
	t.Fatalf("low priority key starved past %d hand-outs", limit+agedShare)
}

func TestStarvingLevelGetsAShareNotEverything(t *testing.T) {
	const limit = 10
	q, _ := newTestQueue(t, Options[string]{StarvationLimit: limit})
	for i := range 100 {
		q.AddWithOpts(AddOpts{Priority: PriorityLow}, fmt.Sprintf("low%d", i))
	}
	lows := 0
	for i := range 200 {
		q.Add(fmt.Sprintf("n%d", i))
		k := mustGet(t, q)
		q.Done(k)
		if strings.HasPrefix(k, "low") {
			lows++
		}
	}
	// After the first limit hand-outs, one in agedShare goes to the low level.
	if want := (200 - limit + agedShare - 1) / agedShare; lows < want-1 || lows > want+1 {
		t.Fatalf("low keys served = %d of 200, want about %d", lows, want)
	}
}

func TestNegativeStarvationLimitIsStrict(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{StarvationLimit: -1})
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "low")
	for i := range 5000 {
		q.Add(fmt.Sprintf("n%d", i))
		if k := mustGet(t, q); k == "low" {
			t.Fatalf("low served at hand-out %d with strict priorities", i)
		} else {
			q.Done(k)
		}
	}
}

func namespaceOf(key string) string {
	ns, _, _ := strings.Cut(key, "/")
	return ns
}

func TestLanesAreServedRoundRobin(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{Lane: namespaceOf})
	q.Add("a/1")
	q.Add("a/2")
	q.Add("a/3")
	q.Add("b/1")
	q.Add("c/1")
	q.Add("b/2")
	want := []string{"a/1", "b/1", "c/1", "a/2", "b/2", "a/3"}
	if got := getAll(t, q, 6); !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

func TestBusyLaneDoesNotDelayAnother(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{Lane: namespaceOf})
	for i := range 10_000 {
		q.Add(fmt.Sprintf("busy/%d", i))
	}
	q.Done(mustGet(t, q)) // the busy lane is mid-round
	q.Add("quiet/1")
	for i := range 2 {
		if k := mustGet(t, q); k == "quiet/1" {
			return
		} else if i == 1 {
			t.Fatalf("quiet/1 not among the next 2 keys behind 10,000 busy ones")
		} else {
			q.Done(k)
		}
	}
}

func TestLanesAreFairWithinEachPriority(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{Lane: namespaceOf})
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "a/low1", "a/low2", "b/low1")
	q.Add("a/1")
	q.Add("a/2")
	q.Add("b/1")
	q.AddWithOpts(AddOpts{Priority: PriorityLow}, "a/2") // no effect: higher kept
	want := []string{"a/1", "b/1", "a/2", "a/low1", "b/low1", "a/low2"}
	if got := getAll(t, q, 6); !slices.Equal(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

func TestStarvationLimitDefault(t *testing.T) {
	if got := newReadyQueue[string](nil, 0).starvationLimit; got != DefaultStarvationLimit {
		t.Fatalf("zero StarvationLimit gives %d, want DefaultStarvationLimit", got)
	}
	if got := newReadyQueue[string](nil, -1).starvationLimit; got != 0 {
		t.Fatalf("negative StarvationLimit gives %d, want 0 (off)", got)
	}
}

// GetWithWait reports how long the key was ready, on the queue's clock.
func TestGetWithWait(t *testing.T) {
	q, clk := newTestQueue(t, Options[string]{})
	q.AddWithOpts(AddOpts{Priority: 3}, "a")
	clk.Step(250 * time.Millisecond)
	key, priority, waited, shutdown := q.GetWithWait()
	if key != "a" || priority != 3 || waited != 250*time.Millisecond || shutdown {
		t.Errorf("GetWithWait = %q, %d, %s, %v; want a, 3, 250ms, false", key, priority, waited, shutdown)
	}
	q.Done(key)
}
