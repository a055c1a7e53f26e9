package fakeapi

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

func TestInstall(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "seeded"}})
	Install(client)
	deployments := client.AppsV1().Deployments("ns")

	created, err := deployments.Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)}}, metav1.CreateOptions{})
	if err != nil || created.ResourceVersion == "" || created.Generation != 1 {
		t.Fatalf("create = %+v, %v; want a resourceVersion and generation 1", created.ObjectMeta, err)
	}

	// A spec update bumps the generation and ignores status.
	next := created.DeepCopy()
	next.Spec.Replicas = ptr.To[int32](2)
	next.Status.Replicas = 7
	updated, err := deployments.Update(ctx, next, metav1.UpdateOptions{})
	if err != nil || updated.Generation != 2 || updated.Status.Replicas != 0 || updated.ResourceVersion == created.ResourceVersion {
		t.Fatalf("update = %+v %+v, %v; want generation 2, status kept, a new resourceVersion", updated.ObjectMeta, updated.Status, err)
	}

	// The stale copy conflicts.
	stale := created.DeepCopy()
	stale.Annotations = map[string]string{"x": "y"}
	if _, err := deployments.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v, want a conflict", err)
	}

	// A status update keeps the spec and generation.
	status := updated.DeepCopy()
	status.Spec.Replicas = ptr.To[int32](9)
	status.Status.Replicas = 2
	afterStatus, err := deployments.UpdateStatus(ctx, status, metav1.UpdateOptions{})
	if err != nil || *afterStatus.Spec.Replicas != 2 || afterStatus.Status.Replicas != 2 || afterStatus.Generation != 2 {
		t.Errorf("status update = %+v %+v, %v; want spec and generation kept, status written", afterStatus.Spec, afterStatus.Status, err)
	}
	if _, err := deployments.UpdateStatus(ctx, updated, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale status update: %v, want a conflict", err)
	}

	// Seeded objects have no resourceVersion until their first write.
	seeded, _ := deployments.Get(ctx, "seeded", metav1.GetOptions{})
	if _, err := deployments.Update(ctx, seeded, metav1.UpdateOptions{}); err != nil {
		t.Errorf("first write to a seeded object: %v", err)
	}
	if _, err := deployments.Update(ctx, seeded, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("second write with the seeded copy: %v, want a conflict", err)
	}
}

func TestInstallCopiesWatchEvents(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	Install(client)
	w, err := client.AppsV1().Deployments("ns").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := client.AppsV1().Deployments("ns").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Labels: map[string]string{"a": "b"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e := <-w.ResultChan()
	e.Object.(*appsv1.Deployment).Labels["a"] = "changed by a watcher"
	stored, err := client.AppsV1().Deployments("ns").Get(ctx, "d", metav1.GetOptions{})
	if err != nil || stored.Labels["a"] != "b" {
		t.Errorf("stored labels %v, %v: a watcher's edit reached the store", stored.Labels, err)
	}
}
