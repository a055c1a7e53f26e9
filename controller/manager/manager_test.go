package manager

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

func TestNewRejectsBadLeaderElectionOptions(t *testing.T) {
	client := fake.NewClientset()
	valid := Options{
		Logger:         quiet(),
		Lease:          lease.Config{Client: client, Namespace: "ns"},
		LeaderElection: LeaderElection{Enabled: true, Name: "lease"},
	}
	for _, tc := range []struct {
		name   string
		modify func(*Options)
		want   string
	}{
		{"no client", func(o *Options) { o.Lease.Client = nil }, "Client is required"},
		{"no namespace", func(o *Options) { o.Lease.Namespace = "" }, "Namespace is required"},
		{"no name", func(o *Options) { o.LeaderElection.Name = "" }, "Name is required"},
		{"sub-second lease", func(o *Options) {
			o.Lease.LeaseDuration, o.Lease.RenewDeadline, o.Lease.RetryPeriod = 900*time.Millisecond, 500*time.Millisecond, 100*time.Millisecond
		}, "LeaseDuration 900ms must be whole seconds, at least one"},
		{"renew deadline not below lease", func(o *Options) { o.Lease.RenewDeadline = 20 * time.Second }, "RenewDeadline 20s must be positive and below LeaseDuration 15s"},
		{"retry period too long", func(o *Options) { o.Lease.RetryPeriod = 9 * time.Second }, "RetryPeriod 9s"},
		{"negative retry period", func(o *Options) { o.Lease.RetryPeriod = -time.Second }, "RetryPeriod -1s"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := valid
			tc.modify(&opts)
			_, err := New(opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("New = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// Disabled leader election ignores the other fields.
	if _, err := New(Options{Logger: quiet(), LeaderElection: LeaderElection{Name: "x"}}); err != nil {
		t.Errorf("New with leader election disabled: %v", err)
	}
}

func TestDefaults(t *testing.T) {
	client := fake.NewClientset()
	opts := Options{Lease: lease.Config{Client: client, Namespace: "ns"}, LeaderElection: LeaderElection{Enabled: true, Name: "lease"}}
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	if prefix := strings.ToLower(host) + "-"; !strings.HasPrefix(a.ID(), prefix) || a.ID() == b.ID() {
		t.Errorf("IDs %q and %q: want distinct, starting with %q", a.ID(), b.ID(), prefix)
	}
	le := a.opts.Lease
	if le.LeaseDuration != 15*time.Second || le.RenewDeadline != 10*time.Second || le.RetryPeriod != 2*time.Second {
		t.Errorf("durations = %s/%s/%s, want kcm's 15s/10s/2s", le.LeaseDuration, le.RenewDeadline, le.RetryPeriod)
	}
	if a.opts.GracefulShutdownTimeout != 30*time.Second {
		t.Errorf("GracefulShutdownTimeout = %s, want 30s", a.opts.GracefulShutdownTimeout)
	}
	if a.Registry() == nil || a.Registry() == b.Registry() {
		t.Error("each Manager without Options.Registry needs its own registry")
	}
	if a.logger.GetSink() != klog.Background().GetSink() {
		t.Error("default logger is not klog.Background()")
	}
	if id := mustNew(t, Options{Logger: quiet()}).ID(); id != "" {
		t.Errorf("ID without leader election = %q, want empty", id)
	}
}

func mustNew(t *testing.T, opts Options) *Manager {
	t.Helper()
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Names are unique per Manager, not per process.
func TestAddRejectsDuplicateNames(t *testing.T) {
	a, b := mustNew(t, Options{Logger: quiet()}), mustNew(t, Options{Logger: quiet()})
	if err := a.Add(newFake("deployment", true, nil)); err != nil {
		t.Fatal(err)
	}
	err := a.Add(newFake("deployment", false, nil))
	if err == nil || !strings.Contains(err.Error(), `"deployment"`) {
		t.Errorf("second Add(deployment) = %v, want a duplicate-name error", err)
	}
	if err := b.Add(newFake("deployment", true, nil)); err != nil {
		t.Errorf("Add(deployment) to another Manager: %v", err)
	}
	// Unnamed runnables are never duplicates.
	f := RunnableFunc(func(context.Context) error { return nil })
	if err := a.Add(f); err != nil {
		t.Error(err)
	}
	if err := a.Add(f); err != nil {
		t.Errorf("second unnamed runnable: %v", err)
	}
	if err := a.Add(nil); err == nil {
		t.Error("Add(nil) succeeded")
	}
	if err := a.AddInformerFactory(nil); err == nil {
		t.Error("AddInformerFactory(nil) succeeded")
	}
}

func TestRunTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := mustNew(t, Options{Logger: quiet()})
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		<-m.Elected()
		if err := m.Run(ctx); err == nil {
			t.Error("second Run succeeded")
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

// Runnables get the Manager's logger through their context, and the
// context's values, but are cancelled only by the Manager.
func TestRunnableContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var lines []string
		logger := funcr.New(func(prefix, args string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, args)
		}, funcr.Options{})
		m := mustNew(t, Options{Logger: logger})
		type key struct{}
		gotValue := make(chan any, 1)
		mustAdd(t, m, RunnableFunc(func(ctx context.Context) error {
			gotValue <- ctx.Value(key{})
			klog.FromContext(ctx).Info("hello from a runnable")
			<-ctx.Done()
			return ctx.Err() // context.Canceled on shutdown is not an error
		}))
		ctx, cancel := context.WithCancel(context.WithValue(t.Context(), key{}, "v"))
		done := runInBackground(ctx, m)
		if v := <-gotValue; v != "v" {
			t.Errorf("runnable saw value %v, want v", v)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if !strings.Contains(strings.Join(lines, "\n"), "hello from a runnable") {
			t.Errorf("runnable's log did not reach Options.Logger: %q", lines)
		}
	})
}

// A runnable without LeaderElectionRunnable is treated as needing the Lease.
func TestDefaultNeedsLeaderElection(t *testing.T) {
	if !needsLeaderElection(RunnableFunc(nil)) {
		t.Error("a plain RunnableFunc should need leader election")
	}
	if needsLeaderElection(newFake("x", false, nil)) {
		t.Error("NeedLeaderElection() false was ignored")
	}
}
