package controllertest_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/typed"
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

// A reconciler's unit test of a custom resource: the fake typed client
// stores writes as a server would, so a status write from a stale copy
// fails as it would in a cluster.
func ExampleNewTypedClient() {
	ctx := context.Background()
	gadgets := typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true}
	client, err := controllertest.NewTypedClient(gadgets,
		&Gadget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "a", Generation: 1}, Spec: GadgetSpec{Color: "red"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	shop := client.Namespace("shop")
	seen, _ := shop.Get(ctx, "a", metav1.GetOptions{})

	// A user changes the spec after the reconciler read the object.
	changed := seen.DeepCopyObject().(*Gadget)
	changed.Spec.Color = "blue"
	changed, _ = shop.Update(ctx, changed, metav1.UpdateOptions{})
	fmt.Println("generation", changed.Generation)

	seen.Status.Ready = true
	_, err = shop.UpdateStatus(ctx, seen, metav1.UpdateOptions{})
	fmt.Println(err)
	// Output:
	// generation 2
	// Operation cannot be fulfilled on gadgets.example.ctrlkit.dev "a": the object has been modified; please apply your changes to the latest version and try again
}
