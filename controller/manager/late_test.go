package manager

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"k8s.io/client-go/kubernetes/fake"
)

// A runnable and a factory added to a running Manager start at once, are
// stopped by its shutdown in the usual order, and count for /readyz.
func TestAddToRunningManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := &recorder{}
		m := mustNew(t, Options{Logger: quiet()})
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-m.Elected()

		f := newFakeFactory(rec)
		if err := m.AddInformerFactory(f); err != nil {
			t.Fatalf("AddInformerFactory after Run: %v", err)
		}
		late := newFake("late", true, rec)
		mustAdd(t, m, late)
		<-f.started
		<-late.started
		if code, body := probe(m.readyz.handler("/readyz"), "/readyz?verbose"); code == 200 {
			t.Errorf("/readyz = %d %q before the late factory and runnable synced, want failure", code, body)
		}
		close(f.sync)
		late.synced.Store(true)
		synctest.Wait()
		if code, body := probe(m.readyz.handler("/readyz"), "/readyz"); code != 200 {
			t.Errorf("/readyz = %d %q, want 200", code, body)
		}
		if err := m.Add(newFake("late", false, nil)); err == nil {
			t.Error("a second runnable named late was added")
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if got, want := strings.Join(rec.get(), ","), "start informers,start late,stop late,stop informers"; got != want {
			t.Errorf("events %s, want %s", got, want)
		}
		if err := m.Add(newFake("after", false, nil)); err == nil {
			t.Error("Add after Run returned succeeded")
		}
		if err := m.AddInformerFactory(newFakeFactory(nil)); err == nil {
			t.Error("AddInformerFactory after Run returned succeeded")
		}
	})
}

// On a standby, a leader runnable added while running waits for the Lease;
// one without leader election starts at once.
func TestAddToRunningStandby(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		var active, maxActive atomic.Int32
		a := startCandidate(t, leOptions(client, "a", true), &active, &maxActive)
		<-a.m.Elected()
		b := startCandidate(t, leOptions(client, "b", true), &active, &maxActive)
		<-b.other.started

		leader, other := newFake("late-leader", true, nil), newFake("late-other", false, nil)
		mustAdd(t, b.m, leader, other)
		<-other.started
		synctest.Wait()
		if isClosedChan(leader.started) {
			t.Fatal("the standby started a late leader runnable")
		}
		a.stop(t)
		<-leader.started // with the Lease
		b.stop(t)
	})
}

// A runnable added while running that fails stops the Manager, as one
// added before Run does, even when more runnables were added than the
// Manager had when Run began.
func TestLateRunnableFailureStopsManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, Options{Logger: quiet()})
		done := runInBackground(t.Context(), m)
		<-m.Elected()
		boom := errors.New("boom")
		var fakes []*fakeRunnable
		for _, name := range []string{"a", "b", "c"} {
			f := newFake(name, false, nil)
			f.fail = make(chan error, 1)
			fakes = append(fakes, f)
			mustAdd(t, m, f)
			<-f.started
		}
		for _, f := range fakes {
			f.fail <- boom
		}
		if err := <-done; !errors.Is(err, boom) {
			t.Errorf("Run = %v, want %v", err, boom)
		}
	})
}
