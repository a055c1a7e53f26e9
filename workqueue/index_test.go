package workqueue

import "testing"

func TestRepeatIndexFollowsTheKey(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	check := func(step string) {
		t.Helper()
		if err := q.checkInvariants(); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	q.Add("k")
	if q.repeats.covers("k", PriorityNormal) {
		t.Fatal("a key added once is indexed")
	}
	q.Add("k")
	if !q.repeats.covers("k", PriorityNormal) || q.repeats.covers("k", 1) {
		t.Fatal("a repeated key is not indexed at its priority")
	}
	check("repeat")
	q.AddWithOpts(AddOpts{Priority: 5}, "k") // higher: takes the lock, re-indexes
	if !q.repeats.covers("k", 5) {
		t.Fatal("index kept the old priority")
	}
	k, p, _ := q.GetWithPriority()
	if k != "k" || p != 5 {
		t.Fatalf("Get = %s@%d, want k@5", k, p)
	}
	if q.repeats.covers("k", PriorityLow) {
		t.Fatal("a handed-out key is still indexed: a re-add would be lost")
	}
	check("hand-out")
	q.Add("k") // held for after Done
	q.Add("k") // served by the index
	if got := q.Len(); got != 0 {
		t.Fatalf("Len with k in flight = %d, want 0", got)
	}
	check("held")
	q.Done(k)
	if got := q.Len(); got != 1 {
		t.Fatalf("Len after Done = %d, want 1", got)
	}
	q.Done(mustGet(t, q))
	check("drained")
	if q.Len() != 0 || q.repeats.covers("k", PriorityLow) {
		t.Fatal("queue or index not empty after the last Done")
	}
}

func TestRepeatAddsDoNotAllocate(t *testing.T) {
	q, _ := newTestQueue(t, Options[string]{})
	q.Add("k")
	q.Add("k")
	if allocs := testing.AllocsPerRun(100, func() { q.Add("k") }); allocs != 0 {
		t.Fatalf("%v allocations per repeated Add, want 0", allocs)
	}
}
