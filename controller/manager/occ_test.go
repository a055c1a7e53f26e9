package manager

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// The helper the leader election tests rely on really rejects stale writes.
func TestOptimisticConcurrencyHelper(t *testing.T) {
	leases := withOptimisticConcurrency(fake.NewClientset()).CoordinationV1().Leases("ns")
	ctx := context.Background()
	created, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "l"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	read, err := leases.Get(ctx, "l", metav1.GetOptions{})
	if err != nil || read.ResourceVersion == "" || read.ResourceVersion != created.ResourceVersion {
		t.Fatalf("Get = %v, %v; want the created resourceVersion %q", read, err, created.ResourceVersion)
	}
	first, err := leases.Update(ctx, read.DeepCopy(), metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("first update: %v", err)
	}
	if first.ResourceVersion == read.ResourceVersion {
		t.Error("update did not bump resourceVersion")
	}
	if _, err := leases.Update(ctx, read.DeepCopy(), metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale update = %v, want a conflict", err)
	}
}
