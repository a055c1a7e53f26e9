package leaseconfig

import (
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

func TestCompleteFillsDefaultsAndAnID(t *testing.T) {
	c, err := Complete(lease.Config{Client: fake.NewClientset(), Namespace: "kube-system"}, "Options.")
	if err != nil {
		t.Fatal(err)
	}
	if c.LeaseDuration != lease.DefaultLeaseDuration || c.RenewDeadline != lease.DefaultRenewDeadline || c.RetryPeriod != lease.DefaultRetryPeriod {
		t.Errorf("timings %s/%s/%s, want the defaults", c.LeaseDuration, c.RenewDeadline, c.RetryPeriod)
	}
	// The ID names a ring member's Lease and a LeaseCandidate: it must fit an object name.
	if msgs := validation.IsDNS1123Subdomain("ring-" + c.ID); len(msgs) > 0 {
		t.Errorf("ID %q does not fit an object name: %v", c.ID, msgs)
	}
	other, _ := Complete(lease.Config{Client: fake.NewClientset(), Namespace: "kube-system"}, "Options.")
	if other.ID == c.ID {
		t.Errorf("two holders in one process share the ID %q", c.ID)
	}
}

func TestCompleteRejectsBrokenInvariants(t *testing.T) {
	client := fake.NewClientset()
	for _, tc := range []struct {
		name string
		c    lease.Config
		want string
	}{
		{"no client", lease.Config{Namespace: "ns"}, "LeaderElection.Client is required"},
		{"no namespace", lease.Config{Client: client}, "LeaderElection.Namespace is required"},
		{"fractional lease", lease.Config{Client: client, Namespace: "ns", LeaseDuration: 1500 * time.Millisecond, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond}, "whole seconds"},
		{"renew past lease", lease.Config{Client: client, Namespace: "ns", LeaseDuration: 10 * time.Second, RenewDeadline: 10 * time.Second}, "below LeaseDuration"},
		{"jittered retry past renew", lease.Config{Client: client, Namespace: "ns", RenewDeadline: 3 * time.Second, RetryPeriod: 2500 * time.Millisecond}, "times 1.2, below RenewDeadline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Complete(tc.c, "LeaderElection.")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}
