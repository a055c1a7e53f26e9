package manager

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

func coordinatedOptions(c kubernetes.Interface, id, binaryVersion string) Options {
	opts := leOptions(c, id, false)
	opts.LeaderElection.Coordinated = CoordinatedLeaderElection{Enabled: true, BinaryVersion: binaryVersion}
	return opts
}

// servingLeaseCandidates makes the fake's discovery list LeaseCandidates,
// as kube-apiserver does with the feature gate and the API on.
func servingLeaseCandidates(c *fake.Clientset) *fake.Clientset {
	c.Resources = []*metav1.APIResourceList{{
		GroupVersion: coordinationv1beta1.SchemeGroupVersion.String(),
		APIResources: []metav1.APIResource{{Name: "leasecandidates", Namespaced: true, Kind: "LeaseCandidate"}},
	}}
	return c
}

// assignLease writes the Lease the way the API server's leader election
// controller does when it picks holder: holder, a fresh renew time and
// its five-second duration.
func assignLease(t *testing.T, c kubernetes.Interface, holder string) {
	t.Helper()
	leases := c.CoordinationV1().Leases(leaseNS)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		now := metav1.NewMicroTime(time.Now())
		l, err := leases.Get(t.Context(), leaseName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: leaseNS, Name: leaseName}}
			l.Spec = coordinationv1.LeaseSpec{HolderIdentity: &holder, RenewTime: &now, LeaseDurationSeconds: ptr.To[int32](5)}
			_, err = leases.Create(t.Context(), l, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		l.Spec.HolderIdentity, l.Spec.RenewTime, l.Spec.AcquireTime = &holder, &now, nil
		_, err = leases.Update(t.Context(), l, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("assigning the Lease to %s: %v", holder, err)
	}
}

// A coordinated candidate registers its LeaseCandidate, never takes the
// Lease itself, leads once the Lease names it, steps down (Run returns
// ErrLeaderElectionLost) when the Lease names another candidate, and
// deletes its LeaseCandidate as it stops.
func TestCoordinatedFollowsAssignedLease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := servingLeaseCandidates(withOptimisticConcurrency(fake.NewClientset()))
		m, err := New(coordinatedOptions(client, "a", "v1.4.0"))
		if err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		work := newFake("leader-work", true, rec)
		mustAdd(t, m, work)
		done := runInBackground(t.Context(), m)

		var lc *coordinationv1beta1.LeaseCandidate
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(lease.DefaultRetryPeriod) {
			synctest.Wait()
			if lc, err = client.CoordinationV1beta1().LeaseCandidates(leaseNS).Get(t.Context(), "a", metav1.GetOptions{}); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("LeaseCandidate a not registered within a minute: %v", err)
			}
		}
		want := coordinationv1beta1.LeaseCandidateSpec{LeaseName: leaseName, BinaryVersion: "v1.4.0", EmulationVersion: "v1.4.0", Strategy: coordinationv1.OldestEmulationVersion}
		got := lc.Spec
		got.RenewTime, got.PingTime = nil, nil
		if got != want {
			t.Errorf("LeaseCandidate spec = %+v, want %+v", got, want)
		}
		if _, err := client.CoordinationV1().Leases(leaseNS).Get(t.Context(), leaseName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("the candidate wrote the Lease itself (Get = %v); only the API server assigns it", err)
		}
		// Well past a lease duration: a plain elector would have taken it.
		time.Sleep(2 * lease.DefaultLeaseDuration)
		synctest.Wait()
		if isClosed(m.Elected()) {
			t.Fatal("elected before the Lease named it")
		}

		assignLease(t, client, "a")
		<-work.started
		if got := leaseHolder(t, client, leaseNS, leaseName); got != "a" {
			t.Errorf("holder while leading = %q, want a", got)
		}

		assignLease(t, client, "b")
		steppedDownAt := time.Now()
		if err := <-done; !errors.Is(err, ErrLeaderElectionLost) {
			t.Fatalf("Run after the Lease named b = %v, want ErrLeaderElectionLost", err)
		}
		if d := time.Since(steppedDownAt); d > lease.DefaultRenewDeadline+2*lease.DefaultRetryPeriod {
			t.Errorf("stepped down %s after the Lease named b, want about RenewDeadline", d)
		}
		if got, want := rec.get(), []string{"start leader-work", "stop leader-work"}; !equal(got, want) {
			t.Errorf("leader runnable events = %q, want %q", got, want)
		}
		if _, err := client.CoordinationV1beta1().LeaseCandidates(leaseNS).Get(t.Context(), "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("LeaseCandidate a after Run returned: Get = %v, want NotFound", err)
		}
	})
}

// Without the LeaseCandidate API, Run fails at once, names the feature gate
// and the runtime config, and starts nothing.
func TestCoordinatedNotServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset()
		m, err := New(coordinatedOptions(client, "a", "1.0.0"))
		if err != nil {
			t.Fatal(err)
		}
		work := newFake("leader-work", true, nil)
		mustAdd(t, m, work)
		err = m.Run(t.Context())
		if err == nil {
			t.Fatal("Run without the LeaseCandidate API succeeded")
		}
		for _, want := range []string{"leasecandidates", "--feature-gates=CoordinatedLeaderElection=true", "--runtime-config=coordination.k8s.io/v1beta1=true"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Run error %q does not mention %q", err, want)
			}
		}
		if isClosed(work.started) {
			t.Error("a leader runnable started")
		}
		list, lerr := client.CoordinationV1beta1().LeaseCandidates(leaseNS).List(context.Background(), metav1.ListOptions{})
		if lerr != nil || len(list.Items) != 0 {
			t.Errorf("LeaseCandidates after the failed Run = %v, %v; want none", list, lerr)
		}
	})
}

func TestCoordinatedOptions(t *testing.T) {
	client := fake.NewClientset()
	for _, tc := range []struct {
		name, id, binary, emulation string
		wantErr                     string
	}{
		{name: "no binary version", id: "a", wantErr: "BinaryVersion is required"},
		{name: "bad binary version", id: "a", binary: "new", wantErr: "BinaryVersion"},
		{name: "bad emulation version", id: "a", binary: "1.2.0", emulation: "old", wantErr: "EmulationVersion"},
		{name: "ID not an object name", id: "host_1", binary: "1.2.0", wantErr: `Lease.ID "host_1"`},
		{name: "valid", id: "a", binary: "1.2.0", emulation: "1.1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := coordinatedOptions(client, tc.id, tc.binary)
			opts.LeaderElection.Coordinated.EmulationVersion = tc.emulation
			_, err := New(opts)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("New = %v, want nil", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("New = %v, want an error mentioning %q", err, tc.wantErr)
			}
		})
	}
}

// The default ID names a LeaseCandidate, so it must be a valid object name.
func TestCoordinatedDefaultIDIsObjectName(t *testing.T) {
	m, err := New(coordinatedOptions(fake.NewClientset(), "", "1.2.0"))
	if err != nil {
		t.Fatal(err)
	}
	if msgs := validation.IsDNS1123Subdomain(m.ID()); len(msgs) > 0 {
		t.Errorf("default ID %q is not an object name: %v", m.ID(), msgs)
	}
}
