package workqueue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// checkInvariants verifies the invariants stated on Queue and readyQueue:
// items, lanes, levels and the delay heap agree with each other.
func (q *Queue[T]) checkInvariants() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := &q.ready

	inFlight, ready := 0, 0
	for key, it := range q.items {
		if it.key != key {
			return fmt.Errorf("item of %v holds key %v", key, it.key)
		}
		switch it.state {
		case itemReady:
			ready++
			if _, ok := q.waiting.byKey[key]; ok {
				return fmt.Errorf("%v is ready and waiting", key)
			}
		case itemRequeued:
			inFlight++
			if _, ok := q.waiting.byKey[key]; ok {
				return fmt.Errorf("%v is requeued and waiting", key)
			}
		case itemInFlight:
			inFlight++
		}
	}
	if inFlight != q.inFlight || ready != r.len {
		return fmt.Errorf("counts: in flight %d/%d, ready %d/%d", inFlight, q.inFlight, ready, r.len)
	}

	h := &q.waiting
	if len(h.items) != len(h.byKey) {
		return fmt.Errorf("heap holds %d items, index %d", len(h.items), len(h.byKey))
	}
	for i, w := range h.items {
		if int(w.index) != i || h.byKey[w.key] != w {
			return fmt.Errorf("heap item %d (%v) says index %d", i, w.key, w.index)
		}
		if p := (i - 1) / 2; i > 0 && h.items[p].at > w.at {
			return fmt.Errorf("heap order broken at %d", i)
		}
	}
	if q.shuttingDown && len(h.items) > 0 {
		return fmt.Errorf("%d keys wait after ShutDown", len(h.items))
	}

	linked := 0
	for i, lv := range r.levels {
		if i > 0 && r.levels[i-1].priority <= lv.priority {
			return fmt.Errorf("levels out of order at %d", i)
		}
		if lv.len == 0 || lv.cursor == nil {
			return fmt.Errorf("empty level %d kept", lv.priority)
		}
		inLevel, lanes := 0, 0
		l := lv.cursor
		for {
			if l.head == nil || (r.laneOf != nil && lv.lanes[l.name] != l) || l.next.prev != l {
				return fmt.Errorf("lane %q of level %d is empty, unindexed or off the ring", l.name, lv.priority)
			}
			var prev *item[T]
			for it := l.head; it != nil; prev, it = it, it.next {
				if it.state != itemReady || it.priority != lv.priority || it.prev != prev || (r.laneOf != nil && r.laneOf(it.key) != l.name) {
					return fmt.Errorf("item %v misplaced in lane %q of level %d", it.key, l.name, lv.priority)
				}
				if q.items[it.key] != it {
					return fmt.Errorf("linked item %v is not the key's item", it.key)
				}
				inLevel++
			}
			if l.tail != prev {
				return fmt.Errorf("lane %q's tail is not its last item", l.name)
			}
			lanes++
			if l = l.next; l == lv.cursor {
				break
			}
		}
		if inLevel != lv.len || (r.laneOf != nil && lanes != len(lv.lanes)) || (r.laneOf == nil && lanes != 1) {
			return fmt.Errorf("level %d counts %d in %d lanes, holds %d in %d", lv.priority, lv.len, len(lv.lanes), inLevel, lanes)
		}
		linked += inLevel
	}
	if linked != r.len {
		return fmt.Errorf("levels hold %d, len %d", linked, r.len)
	}
	return nil
}

// TestInvariantsUnderRandomOperations drives one goroutine through random
// operations on a fake clock and checks the bookkeeping after each.
func TestInvariantsUnderRandomOperations(t *testing.T) {
	for seed := range uint64(10) {
		rng := rand.New(rand.NewPCG(seed, 1))
		opts := Options[string]{StarvationLimit: 5}
		if seed%2 == 0 {
			opts.Lane = namespaceOf
		}
		q, clk := newTestQueue(t, opts)
		var held []string
		for step := range 2000 {
			key := fmt.Sprintf("ns%d/k%d", rng.IntN(3), rng.IntN(12))
			switch rng.IntN(8) {
			case 0, 1:
				q.Add(key)
			case 2:
				q.AddAfter(key, time.Duration(rng.IntN(5))*time.Second)
			case 3:
				q.AddWithOpts(AddOpts{Priority: rng.IntN(5) - 2, After: time.Duration(rng.IntN(2)) * time.Second}, key)
			case 4, 5:
				if q.Len() > 0 {
					k, _ := q.Get()
					held = append(held, k)
				}
			case 6:
				if len(held) > 0 {
					i := rng.IntN(len(held))
					q.Done(held[i])
					held = append(held[:i], held[i+1:]...)
				}
			case 7:
				clk.Step(time.Second)
				// Let the timer goroutine catch up with the new time.
				testutil.Eventually(t, 10*time.Second, "due keys to be promoted", testutil.True(func() bool {
					q.mu.Lock()
					defer q.mu.Unlock()
					return q.waiting.Len() == 0 || q.waiting.next() > q.now()
				}))
			}
			if err := q.checkInvariants(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
		q.ShutDown()
	}
}
