package manager

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/client-go/kubernetes/fake"
)

// stops keeps the "stop ..." events, whose order Run defines.
func stops(events []string) []string {
	return slices.DeleteFunc(events, func(e string) bool { return !strings.HasPrefix(e, "stop ") })
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return 0, ""
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// Shutdown stops leader runnables, then the others, then informers, then the
// HTTP servers, and releases the Lease last. Each stage checks from inside
// that the later ones are still up.
func TestShutdownOrder(t *testing.T) {
	client := withOptimisticConcurrency(fake.NewClientset())
	opts := leOptions(client, "a", true)
	opts.HealthProbeAddr = "127.0.0.1:0"
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	leader := newFake("leader-work", true, rec)
	other := newFake("cache-warmer", false, rec)
	factory := newFakeFactory(rec)
	mustAdd(t, m, leader, other)
	if err := m.AddInformerFactory(factory); err != nil {
		t.Fatal(err)
	}
	leaseHeld := func(stage string) {
		if got := leaseHolder(t, client, leaseNS, leaseName); got != "a" {
			t.Errorf("while stopping %s: lease holder = %q, want a", stage, got)
		}
	}
	leader.onStop = func() { leaseHeld("leader runnables") }
	other.onStop = func() {
		leaseHeld("other runnables")
		if !slices.Contains(rec.get(), "stop leader-work") {
			t.Error("other runnables stopped before leader runnables")
		}
	}
	factory.onShutdown = func() {
		leaseHeld("informers")
		base := "http://" + m.HealthProbeAddr()
		if code, body := get(t, base+"/healthz"); code != http.StatusOK {
			t.Errorf("while stopping informers: /healthz = %d %q, want 200", code, body)
		}
		if code, body := get(t, base+"/readyz"); code != http.StatusInternalServerError || !strings.Contains(body, "[-]shutdown failed") {
			t.Errorf("while stopping informers: /readyz = %d %q, want 500 shutting down", code, body)
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	done := runInBackground(ctx, m)
	<-leader.started
	<-other.started
	addr := m.HealthProbeAddr()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}

	want := []string{"stop leader-work", "stop cache-warmer", "stop informers"}
	if got := stops(rec.get()); !equal(got, want) {
		t.Errorf("stop order = %q, want %q", got, want)
	}
	if _, err := http.Get("http://" + addr + "/healthz"); err == nil {
		t.Error("health server still answers after Run returned")
	}
	if got := leaseHolder(t, client, leaseNS, leaseName); got != "" {
		t.Errorf("after Run: lease holder = %q, want released", got)
	}
}

// Without leader election every runnable starts at once, and those that
// would need it still stop first.
func TestShutdownOrderWithoutLeaderElection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := New(Options{Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		leader, other := newFake("writer", true, rec), newFake("reader", false, rec)
		mustAdd(t, m, other, leader)
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-m.Elected()
		<-leader.started
		<-other.started
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		if got, want := stops(rec.get()), []string{"stop writer", "stop reader"}; !equal(got, want) {
			t.Errorf("stop order = %q, want %q", got, want)
		}
	})
}

// A runnable that ignores cancellation makes Run return ErrShutdownTimeout
// naming it, after GracefulShutdownTimeout; the Lease is not released since
// the runnable it guards may still be working.
func TestShutdownTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		opts := leOptions(client, "a", true)
		opts.GracefulShutdownTimeout = 5 * time.Second
		m, err := New(opts)
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		stuck := newFake("stuck-writer", true, rec)
		stuck.stuck = make(chan struct{})
		other := newFake("reader", false, rec)
		factory := newFakeFactory(rec)
		mustAdd(t, m, stuck, other)
		if err := m.AddInformerFactory(factory); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-stuck.started
		<-other.started

		cancel()
		cancelled := time.Now()
		err = <-done
		if d := time.Since(cancelled); d != opts.GracefulShutdownTimeout {
			t.Errorf("Run returned %s after cancel, want the timeout %s", d, opts.GracefulShutdownTimeout)
		}
		if !errors.Is(err, ErrShutdownTimeout) || !strings.Contains(err.Error(), "stuck-writer") {
			t.Errorf("Run = %v, want ErrShutdownTimeout naming stuck-writer", err)
		}
		if strings.Contains(err.Error(), "reader") {
			t.Errorf("Run = %v: blames reader, which was never waited for", err)
		}
		synctest.Wait()
		if got := leaseHolder(t, client, leaseNS, leaseName); got != "a" {
			t.Errorf("lease holder = %q, want a: not released while stuck-writer may run", got)
		}
		// Later stages were still told to stop, though not waited for, so
		// in no particular order.
		got := stops(rec.get())
		slices.Sort(got)
		if want := []string{"stop informers", "stop reader"}; !equal(got, want) {
			t.Errorf("stops = %q, want %q", got, want)
		}
		close(stuck.stuck)
		synctest.Wait()
	})
}

// A negative GracefulShutdownTimeout waits as long as it takes.
func TestShutdownWithoutTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := New(Options{Logger: quiet(), GracefulShutdownTimeout: -1})
		if err != nil {
			t.Fatal(err)
		}
		slow := newFake("slow", false, nil)
		slow.onStop = func() { time.Sleep(time.Hour) } // simulated work, in fake time
		mustAdd(t, m, slow)
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-slow.started
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	})
}

// A runnable that fails stops the Manager; Run returns its error.
func TestRunnableFailureStopsManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := New(Options{Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		failing := newFake("failing", false, rec)
		failing.fail = make(chan error)
		other := newFake("other", true, rec)
		mustAdd(t, m, failing, other)
		done := runInBackground(t.Context(), m)
		<-other.started
		boom := errors.New("boom")
		failing.fail <- boom
		err = <-done
		if !errors.Is(err, boom) {
			t.Fatalf("Run = %v, want boom", err)
		}
		if strings.Count(err.Error(), "boom") != 1 {
			t.Errorf("Run = %q: the cause is reported more than once", err)
		}
		if got, want := stops(rec.get()), []string{"stop other"}; !equal(got, want) {
			t.Errorf("stops = %q, want %q", got, want)
		}
	})
}

// A runnable that returns nil early is let go; the others keep running.
func TestRunnableMayFinishEarly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m, err := New(Options{Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		finished := make(chan struct{})
		other := newFake("other", false, nil)
		mustAdd(t, m, RunnableFunc(func(context.Context) error { close(finished); return nil }), other)
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-finished
		<-other.started
		synctest.Wait()
		select {
		case err := <-done:
			t.Fatalf("Run returned %v after a runnable finished early", err)
		default:
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
}
