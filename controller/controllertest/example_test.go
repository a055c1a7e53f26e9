package controllertest_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// A test that builds its own fake clientset installs the API server's
// semantics on it; controllertest.New does this for Env.Client.
func ExampleInstallAPISemantics() {
	ctx := context.Background()
	client := fake.NewClientset()
	controllertest.InstallAPISemantics(client)
	deployments := client.AppsV1().Deployments("default")

	created, _ := deployments.Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr.To[int32](1)},
	}, metav1.CreateOptions{})
	fmt.Println("created at generation", created.Generation)

	// A user scales the Deployment: the spec changed, so the generation goes up.
	scaled := created.DeepCopy()
	scaled.Spec.Replicas = ptr.To[int32](3)
	scaled, _ = deployments.Update(ctx, scaled, metav1.UpdateOptions{})
	fmt.Println("scaled to generation", scaled.Generation)

	// A controller still holding the first copy writes status from it.
	created.Status.ObservedGeneration = created.Generation
	_, err := deployments.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	fmt.Println(err)
	// Output:
	// created at generation 1
	// scaled to generation 2
	// Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again
}
