package controllerutil_test

import (
	"context"
	"errors"
	appsv1 "k8s.io/api/apps/v1"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
)

const finalizer = "example.ctrlkit.dev/cleanup"

func TestFinalizerSet(t *testing.T) {
	d := newDeployment("web")
	if !controllerutil.AddFinalizer(d, finalizer) || controllerutil.AddFinalizer(d, finalizer) {
		t.Error("AddFinalizer: want true once, then false")
	}
	if !controllerutil.ContainsFinalizer(d, finalizer) || len(d.Finalizers) != 1 {
		t.Errorf("finalizers %v", d.Finalizers)
	}
	d.Finalizers = append(d.Finalizers, "other", finalizer)
	if !controllerutil.RemoveFinalizer(d, finalizer) || controllerutil.RemoveFinalizer(d, finalizer) {
		t.Error("RemoveFinalizer: want true once, then false")
	}
	if controllerutil.ContainsFinalizer(d, finalizer) || len(d.Finalizers) != 1 || d.Finalizers[0] != "other" {
		t.Errorf("finalizers %v, want [other]", d.Finalizers)
	}
}

func TestFinalize(t *testing.T) {
	ctx := context.Background()
	client := controllertest.NewClientset(newDeployment("web"))
	deployments := client.AppsV1().Deployments("ns")
	live, _ := deployments.Get(ctx, "web", metav1.GetOptions{})
	var cleanups int
	cleanup := func(context.Context, *appsDeployment) error { cleanups++; return nil }

	current, deleting, err := controllerutil.Finalize(ctx, deployments, live, finalizer, cleanup)
	if err != nil || deleting || !controllerutil.ContainsFinalizer(current, finalizer) || controllerutil.ContainsFinalizer(live, finalizer) {
		t.Fatalf("live object: deleting %v, %v, finalizers %v (argument's %v); want added on a copy", deleting, err, current.Finalizers, live.Finalizers)
	}
	if again, _, err := controllerutil.Finalize(ctx, deployments, current, finalizer, cleanup); err != nil || again.ResourceVersion != current.ResourceVersion {
		t.Errorf("finalizer already there: wrote again (%v)", err)
	}

	// Being deleted: the API server set deletionTimestamp and keeps the object for the finalizer.
	doomed := current.DeepCopy()
	doomed.DeletionTimestamp = &metav1.Time{}
	boom := errors.New("boom")
	if _, deleting, err := controllerutil.Finalize(ctx, deployments, doomed, finalizer, func(context.Context, *appsDeployment) error { return boom }); !errors.Is(err, boom) || !deleting {
		t.Errorf("failed cleanup: deleting %v, %v; want the cleanup's error", deleting, err)
	}
	if stored, _ := deployments.Get(ctx, "web", metav1.GetOptions{}); !controllerutil.ContainsFinalizer(stored, finalizer) {
		t.Error("a failed cleanup removed the finalizer")
	}
	done, deleting, err := controllerutil.Finalize(ctx, deployments, doomed, finalizer, cleanup)
	if err != nil || !deleting || cleanups != 1 || controllerutil.ContainsFinalizer(done, finalizer) {
		t.Errorf("deletion: deleting %v, %v, %d cleanups, finalizers %v; want cleanup once and the finalizer gone", deleting, err, cleanups, done.Finalizers)
	}
	if _, deleting, err := controllerutil.Finalize(ctx, deployments, done, finalizer, cleanup); err != nil || !deleting || cleanups != 1 {
		t.Errorf("deleting without the finalizer: deleting %v, %v, %d cleanups; want nothing done", deleting, err, cleanups)
	}
}

func TestSetCondition(t *testing.T) {
	d := newDeployment("web")
	d.Generation = 3
	var conds []metav1.Condition
	available := metav1.Condition{Type: "Available", Status: metav1.ConditionTrue, Reason: "Ready"}
	if !controllerutil.SetCondition(d, &conds, available) || controllerutil.SetCondition(d, &conds, available) {
		t.Error("SetCondition: want changed once, then not")
	}
	if conds[0].ObservedGeneration != 3 || conds[0].LastTransitionTime.IsZero() {
		t.Errorf("condition %+v, want observedGeneration 3 and a transition time", conds[0])
	}
	if !controllerutil.IsConditionCurrent(d, conds, "Available", metav1.ConditionTrue) {
		t.Error("IsConditionCurrent = false for a condition of this generation")
	}
	d.Generation = 4
	if controllerutil.IsConditionCurrent(d, conds, "Available", metav1.ConditionTrue) {
		t.Error("IsConditionCurrent = true for a condition of an older generation")
	}
	if !controllerutil.SetCondition(d, &conds, available) || conds[0].ObservedGeneration != 4 {
		t.Errorf("a new generation must restamp the condition: %+v", conds[0])
	}
}

type appsDeployment = appsv1.Deployment
