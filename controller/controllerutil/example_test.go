package controllerutil_test

import (
	"context"
	"fmt"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
)

// A reconciler keeps a child Deployment as its owner wants it, on
// client-go's typed client; the second call finds nothing to do.
func ExampleCreateOrUpdate() {
	client := fake.NewClientset()
	parent := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "parent", UID: "1234"}}
	parentKind := appsv1.SchemeGroupVersion.WithKind("Deployment") // a CRD: typed.Resource.GroupVersionKind()

	for range 2 {
		child := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "child"}}
		child, result, err := controllerutil.CreateOrUpdate(context.Background(), client.AppsV1().Deployments("shop"), child,
			func(d *appsv1.Deployment) error {
				d.Spec.Replicas = ptr.To[int32](3)
				return controllerutil.SetControllerReference(parent, parentKind, d)
			})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(result, *child.Spec.Replicas, metav1.GetControllerOf(child).Name)
	}
	// Output:
	// created 3 parent
	// unchanged 3 parent
}

// The deletion flow: the first reconcile adds the finalizer; once the
// object is being deleted, the cleanup runs and the finalizer goes.
func ExampleFinalize() {
	ctx := context.Background()
	client := fake.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}})
	deployments := client.AppsV1().Deployments("shop")
	cleanup := func(_ context.Context, d *appsv1.Deployment) error {
		fmt.Println("cleaning up after", d.Name)
		return nil
	}

	d, _ := deployments.Get(ctx, "web", metav1.GetOptions{})
	d, deleting, err := controllerutil.Finalize(ctx, deployments, d, "example.ctrlkit.dev/cleanup", cleanup)
	fmt.Println(d.Finalizers, deleting, err)

	d.DeletionTimestamp = &metav1.Time{} // as the API server sets it on delete
	d, deleting, err = controllerutil.Finalize(ctx, deployments, d, "example.ctrlkit.dev/cleanup", cleanup)
	fmt.Println(d.Finalizers, deleting, err)
	// Output:
	// [example.ctrlkit.dev/cleanup] false <nil>
	// cleaning up after web
	// [] true <nil>
}

// A condition stamped with the generation it describes.
func ExampleSetCondition() {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 2}}
	var conditions []metav1.Condition
	changed := controllerutil.SetCondition(d, &conditions, metav1.Condition{
		Type: "Available", Status: metav1.ConditionTrue, Reason: "MinimumReplicasAvailable"})
	fmt.Println(changed, conditions[0].ObservedGeneration,
		controllerutil.IsConditionCurrent(d, conditions, "Available", metav1.ConditionTrue))
	// Output:
	// true 2 true
}

// A reconciler reports its progress in the conditions kstatus reads
// (Reconciling, Stalled) and in Ready, for kubectl wait
// --for=condition=Ready; status.observedGeneration is set alongside.
func ExampleMarkReady() {
	app := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Generation: 2}}
	var conditions []metav1.Condition
	show := func() {
		var shown []string
		for _, c := range conditions {
			shown = append(shown, fmt.Sprintf("%s=%s (%s, generation %d)", c.Type, c.Status, c.Reason, c.ObservedGeneration))
		}
		fmt.Println(strings.Join(shown, " "))
	}

	controllerutil.MarkReconciling(app, &conditions, "RollingOut", "2 of 3 replicas updated")
	show()
	controllerutil.MarkStalled(app, &conditions, "ProgressDeadlineExceeded", "no progress for 10m")
	show()
	controllerutil.MarkReady(app, &conditions, "RolloutComplete", "every replica is updated and available")
	show()
	// Output:
	// Reconciling=True (RollingOut, generation 2) Ready=False (RollingOut, generation 2)
	// Ready=False (ProgressDeadlineExceeded, generation 2) Stalled=True (ProgressDeadlineExceeded, generation 2)
	// Ready=True (RolloutComplete, generation 2)
}
