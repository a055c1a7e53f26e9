package manager

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

func TestShardingNeedsAClientAndANamespace(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"nothing", Options{Sharding: Sharding{Ring: "r"}}, []string{"Client is required", "Namespace is required"}},
		{"a bad ring name", Options{Client: fake.NewClientset(), Lease: lease.Config{Namespace: "ns"}, Sharding: Sharding{Ring: "not a label"}}, []string{"Options.Name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Logger = quiet()
			_, err := New(tc.opts)
			for _, w := range tc.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("New = %v, want an error containing %q", err, w)
				}
			}
		})
	}
	m, err := New(Options{Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if m.Ring() != nil {
		t.Error("a Manager without Sharding has a ring")
	}
}

// The ring takes Options.Lease, as leader election does (client, namespace,
// ID and timings), and runs on a replica that does not lead.
func TestShardingRingRunsWithoutLeading(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		// Another replica holds the leader Lease for good.
		now, holder := metav1.NewMicroTime(time.Now()), "other"
		held := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "leader"},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder, AcquireTime: &now, RenewTime: &now, LeaseDurationSeconds: ptr.To[int32](3600)}}
		if _, err := client.CoordinationV1().Leases("ns").Create(t.Context(), held, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		m, err := New(Options{
			Logger: quiet(),
			Lease: lease.Config{Client: client, Namespace: "ns", ID: "me",
				LeaseDuration: 4 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: 500 * time.Millisecond},
			LeaderElection: LeaderElection{Enabled: true, Name: "leader"},
			Sharding:       Sharding{Ring: "ring"},
		})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := m.Ring().ReconcileTimeout(), 800*time.Millisecond; got != want {
			t.Errorf("ReconcileTimeout = %v, want 4/5 of the leader election's 4s - 3s", got)
		}
		ctx, stop := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		testutil.Eventually(t, 10*time.Second, "the lone member to serve every namespace", testutil.True(func() bool {
			for i := range 100 {
				if !m.Ring().Serves(fmt.Sprintf("ns-%d", i), "") {
					return false
				}
			}
			return true
		}))
		if m.leading.Load() {
			t.Error("the replica leads, though another holds the leader Lease")
		}
		if _, err := client.CoordinationV1().Leases("ns").Get(t.Context(), "ring-me", metav1.GetOptions{}); err != nil {
			t.Errorf("the member's Lease: %v", err)
		}
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}
