package manager

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

const (
	leaseNS   = "kube-system"
	leaseName = "ctrlkit-test"
)

func leOptions(c kubernetes.Interface, id string, release bool) Options {
	return Options{
		Logger: quiet(),
		Lease:  lease.Config{Client: c, Namespace: leaseNS, ID: id},
		LeaderElection: LeaderElection{
			Enabled:         true,
			Name:            leaseName,
			ReleaseOnCancel: release,
		},
	}
}

// candidate is one Manager with one leader runnable and one other runnable.
type candidate struct {
	m      *Manager
	leader *fakeRunnable
	other  *fakeRunnable
	cancel context.CancelFunc
	done   <-chan error
}

func startCandidate(t *testing.T, opts Options, active, maxActive *atomic.Int32) *candidate {
	t.Helper()
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	c := &candidate{m: m, leader: newFake("leader-work", true, nil), other: newFake("cache-warmer", false, nil)}
	c.leader.active, c.leader.maxActive = active, maxActive
	for _, r := range []Runnable{c.leader, c.other} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(t.Context())
	c.cancel = cancel
	c.done = runInBackground(ctx, m)
	return c
}

func (c *candidate) stop(t *testing.T) {
	t.Helper()
	c.cancel()
	if err := <-c.done; err != nil {
		t.Errorf("%s: Run: %v", c.m.ID(), err)
	}
}

func isClosedChan(c <-chan struct{}) bool { return isClosed(c) }

// Two Managers on one Lease: the second runs its other runnables at once but
// its leader runnable only after the first releases the Lease, well before
// the Lease would have expired.
func TestLeaderElectionHandoverOnRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		var active, maxActive atomic.Int32

		a := startCandidate(t, leOptions(client, "a", true), &active, &maxActive)
		<-a.m.Elected()
		if got := leaseHolder(t, client, leaseNS, leaseName); got != "a" {
			t.Fatalf("lease holder = %q, want a", got)
		}

		b := startCandidate(t, leOptions(client, "b", true), &active, &maxActive)
		<-b.other.started // non-leader runnables do not wait for the Lease
		time.Sleep(3 * lease.DefaultLeaseDuration)
		synctest.Wait()
		if isClosedChan(b.m.Elected()) || isClosedChan(b.leader.started) {
			t.Fatal("b became leader while a holds the Lease")
		}

		a.stop(t)
		if got := leaseHolder(t, client, leaseNS, leaseName); got != "" {
			t.Fatalf("after a stopped, lease holder = %q, want released", got)
		}
		handover := time.Now()
		<-b.leader.started
		if d := time.Since(handover); d >= lease.DefaultLeaseDuration {
			t.Errorf("b took over after %s, want less than LeaseDuration (release, not expiry)", d)
		}
		if got := leaseHolder(t, client, leaseNS, leaseName); got != "b" {
			t.Fatalf("lease holder = %q, want b", got)
		}
		b.stop(t)
		if n := maxActive.Load(); n != 1 {
			t.Errorf("at most %d leader runnables ran at once, want 1", n)
		}
	})
}

// Without ReleaseOnCancel the Lease is kept after Run and the standby takes
// over only once it has expired.
func TestLeaderElectionTakeoverAfterExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		var active, maxActive atomic.Int32
		a := startCandidate(t, leOptions(client, "a", false), &active, &maxActive)
		<-a.m.Elected()
		b := startCandidate(t, leOptions(client, "b", false), &active, &maxActive)
		<-b.other.started

		a.stop(t)
		if got := leaseHolder(t, client, leaseNS, leaseName); got != "a" {
			t.Fatalf("after a stopped, lease holder = %q, want a (not released)", got)
		}
		stopped := time.Now()
		<-b.leader.started
		if d := time.Since(stopped); d < lease.DefaultLeaseDuration-lease.DefaultRetryPeriod {
			t.Errorf("b took over %s after a stopped, before the Lease could expire", d)
		}
		b.stop(t)
		if n := maxActive.Load(); n != 1 {
			t.Errorf("at most %d leader runnables ran at once, want 1", n)
		}
	})
}

// When renewals fail, the leader stops its leader runnables, then the others,
// and Run returns ErrLeaderElectionLost.
func TestLeaderElectionLost(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		var failUpdates atomic.Bool
		client.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
			if failUpdates.Load() {
				return true, nil, errors.New("apiserver unreachable")
			}
			return false, nil, nil
		})
		rec := &recorder{}
		m, err := New(leOptions(client, "a", true))
		if err != nil {
			t.Fatal(err)
		}
		leader, other := newFake("leader-work", true, rec), newFake("cache-warmer", false, rec)
		for _, r := range []Runnable{leader, other} {
			if err := m.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		done := runInBackground(t.Context(), m)
		<-leader.started

		failUpdates.Store(true)
		lostAt := time.Now()
		err = <-done
		if !errors.Is(err, ErrLeaderElectionLost) {
			t.Fatalf("Run = %v, want ErrLeaderElectionLost", err)
		}
		if d := time.Since(lostAt); d > lease.DefaultRenewDeadline+2*lease.DefaultRetryPeriod {
			t.Errorf("Run returned %s after renewals started failing, want about RenewDeadline", d)
		}
		want := []string{"start cache-warmer", "start leader-work", "stop leader-work", "stop cache-warmer"}
		if got := rec.get(); !equal(got, want) {
			t.Errorf("events = %q, want %q", got, want)
		}
	})
}

// A candidate that is not leader still starts its informers and other
// runnables, and is ready: failover starts with warm caches.
func TestStandbyIsWarmAndReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		var active, maxActive atomic.Int32
		a := startCandidate(t, leOptions(client, "a", true), &active, &maxActive)
		<-a.m.Elected()

		m, err := New(leOptions(client, "b", true))
		if err != nil {
			t.Fatal(err)
		}
		f := newFakeFactory(nil)
		leader := newFake("leader-work", true, nil) // never synced: not started here
		other := newFake("cache-warmer", false, nil)
		other.synced.Store(true)
		mustAdd(t, m, leader, other)
		if err := m.AddInformerFactory(f); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-f.started
		<-other.started
		close(f.sync)
		synctest.Wait()
		if code, body := probe(m.readyz.handler("/readyz"), "/readyz"); code != 200 {
			t.Errorf("standby /readyz = %d %q, want 200", code, body)
		}
		if code, body := probe(m.healthz.handler("/healthz"), "/healthz?verbose"); code != 200 || !strings.Contains(body, "[+]leader-election ok") {
			t.Errorf("standby /healthz?verbose = %d %q, want 200 with leader-election ok", code, body)
		}
		if isClosedChan(leader.started) {
			t.Error("standby started its leader runnable")
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		a.stop(t)
	})
}

// Several candidates started at the same instant: exactly one leads at any
// time, and each release hands over to exactly one of the rest.
func TestLeaderElectionManyCandidates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		var active, maxActive atomic.Int32
		var cs []*candidate
		for i := range 4 {
			cs = append(cs, startCandidate(t, leOptions(client, fmt.Sprintf("c%d", i), true), &active, &maxActive))
		}
		for len(cs) > 0 {
			// Long enough for a takeover after a release (a RetryPeriod
			// with jitter), and for a duplicate leader to show up.
			time.Sleep(2 * lease.DefaultLeaseDuration)
			synctest.Wait()
			var leaders []int
			for i, c := range cs {
				if isClosed(c.leader.started) {
					leaders = append(leaders, i)
				}
			}
			if len(leaders) != 1 {
				t.Fatalf("%d of %d candidates lead, want exactly 1", len(leaders), len(cs))
			}
			l := cs[leaders[0]]
			if got := leaseHolder(t, client, leaseNS, leaseName); got != l.m.ID() {
				t.Errorf("lease holder = %q, want the running leader %q", got, l.m.ID())
			}
			l.stop(t)
			cs = slices.Delete(cs, leaders[0], leaders[0]+1)
		}
		if n := maxActive.Load(); n != 1 {
			t.Errorf("at most %d leader runnables ran at once, want 1", n)
		}
	})
}

// Options.LeaderElection.EventRecorder hears about leadership changes.
func TestLeaderElectionEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		events := record.NewFakeRecorder(10)
		opts := leOptions(client, "a", true)
		opts.LeaderElection.EventRecorder = events
		m := mustNew(t, opts)
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-m.Elected()
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		close(events.Events)
		var got []string
		for e := range events.Events {
			got = append(got, e)
		}
		want := []string{"Normal LeaderElection a became leader", "Normal LeaderElection a stopped leading"}
		if !slices.Equal(got, want) {
			t.Errorf("events = %q, want %q", got, want)
		}
	})
}

func TestReleaseOnlyGivesUpOwnLease(t *testing.T) {
	for _, tc := range []struct {
		name       string
		holder     string
		conflicts  int32
		wantHolder string
		wantErr    bool
	}{
		{name: "own lease", holder: "a", wantHolder: ""},
		{name: "own lease after a conflict", holder: "a", conflicts: 1, wantHolder: ""},
		{name: "conflicts every time", holder: "a", conflicts: 100, wantHolder: "a", wantErr: true},
		{name: "someone else's lease", holder: "b", wantHolder: "b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(&coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Namespace: leaseNS, Name: leaseName},
				Spec:       coordinationv1.LeaseSpec{HolderIdentity: &tc.holder},
			})
			var conflicts atomic.Int32
			conflicts.Store(tc.conflicts)
			client.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
				if conflicts.Add(-1) >= 0 {
					return true, nil, apierrors.NewConflict(coordinationv1.Resource("leases"), leaseName, errors.New("changed"))
				}
				return false, nil, nil
			})
			opts, err := leOptions(client, "a", true).withDefaults()
			if err != nil {
				t.Fatal(err)
			}
			e, err := newElector(opts.LeaderElection, opts.Lease, quiet())
			if err != nil {
				t.Fatal(err)
			}
			if err := e.release(t.Context()); (err != nil) != tc.wantErr {
				t.Errorf("release = %v, want error %v", err, tc.wantErr)
			}
			if got := leaseHolder(t, client, leaseNS, leaseName); got != tc.wantHolder {
				t.Errorf("holder = %q, want %q", got, tc.wantHolder)
			}
		})
	}
}
