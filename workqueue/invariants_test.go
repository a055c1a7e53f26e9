package workqueue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// checkInvariants verifies the queue's internal bookkeeping: entries, nodes,
// lanes, levels and the delay heap agree with each other.
func (q *Queue[T]) checkInvariants() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	r := &q.ready

	inFlight, ready, live := 0, 0, 0
	for key, e := range q.entries {
		if e.waiting() {
			i := e.index()
			if int(i) >= len(q.waiting) || q.waiting[i].key != key {
				return fmt.Errorf("waiting entry of %v points at heap %d", key, i)
			}
			if e.inFlight() {
				inFlight++
			}
			continue
		}
		n := e.index()
		if int(n) >= len(r.nodes) || r.nodes[n].key != key {
			return fmt.Errorf("entry of %v points at node %d", key, n)
		}
		live++
		switch r.nodes[n].state {
		case nodeReady:
			ready++
		case nodeInFlight, nodeHeld:
			inFlight++
		}
	}
	if len(q.waiting) != countWaiting(q.entries) {
		return fmt.Errorf("heap holds %d items, entries say %d", len(q.waiting), countWaiting(q.entries))
	}
	for i := range q.waiting {
		if p := (i - 1) / 2; i > 0 && q.waiting[p].at > q.waiting[i].at {
			return fmt.Errorf("heap order broken at %d", i)
		}
	}
	if inFlight != q.inFlight || ready != r.count || live != r.live {
		return fmt.Errorf("counts: inFlight %d/%d ready %d/%d live %d/%d", inFlight, q.inFlight, ready, r.count, live, r.live)
	}

	linked := 0
	prev := int64(1) << 40
	for _, li := range r.active {
		lv := &r.levels[li]
		if int64(lv.prio) >= prev {
			return fmt.Errorf("levels out of order")
		}
		prev = int64(lv.prio)
		inLevel := 0
		for n := lv.oldest; n != noIndex; n = r.nodes[n].newer {
			if r.nodes[n].state != nodeReady || r.nodes[n].prio != lv.prio {
				return fmt.Errorf("node %d in level %d: state %d prio %d", n, lv.prio, r.nodes[n].state, r.nodes[n].prio)
			}
			inLevel++
		}
		if inLevel != lv.count {
			return fmt.Errorf("level %d counts %d, arrival list has %d", lv.prio, lv.count, inLevel)
		}
		if inLevel == 0 {
			if len(r.active) != 1 {
				return fmt.Errorf("empty level %d kept beside others", lv.prio)
			}
			continue // the kept empty level
		}
		inLanes := 0
		ln := lv.cursor
		for {
			l := &r.lanes[ln]
			if l.level != li || l.head == noIndex {
				return fmt.Errorf("lane %d of level %d is empty or misplaced", ln, lv.prio)
			}
			for n := l.head; n != noIndex; n = r.nodes[n].next {
				if r.nodes[n].lane != ln {
					return fmt.Errorf("node %d in lane %d says lane %d", n, ln, r.nodes[n].lane)
				}
				inLanes++
			}
			if r.lanes[l.next].prev != ln {
				return fmt.Errorf("lane ring broken at %d", ln)
			}
			ln = l.next
			if ln == lv.cursor {
				break
			}
		}
		if inLanes != inLevel {
			return fmt.Errorf("level %d: lanes hold %d, arrival list %d", lv.prio, inLanes, inLevel)
		}
		linked += inLevel
	}
	if linked != r.count {
		return fmt.Errorf("levels hold %d, count %d", linked, r.count)
	}
	return nil
}

func countWaiting[T comparable](entries map[T]entry) int {
	n := 0
	for _, e := range entries {
		if e.waiting() {
			n++
		}
	}
	return n
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
				waitFor(t, "due keys to be promoted", func() bool {
					q.mu.Lock()
					defer q.mu.Unlock()
					return len(q.waiting) == 0 || q.waiting[0].at > q.now()
				})
			}
			if err := q.checkInvariants(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
		q.ShutDown()
	}
}
