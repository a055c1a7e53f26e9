package sharding_test

import (
	"context"
	"fmt"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// A sharded controller without a manager or builder: a ring, informers
// that list and watch only its share, and the controller options that
// make the handover safe. Run the ring, the factory and the controller
// together (a manager does).
func Example() {
	client := fake.NewClientset()
	ring, err := sharding.New(sharding.Options{
		Name:  "deployment-controller",
		Lease: lease.Config{Client: client, Namespace: "kube-system", ID: "replica-0"},
	})
	if err != nil {
		panic(err)
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	if err := sharding.Shard(factory, ring,
		sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced)); err != nil {
		panic(err)
	}
	opts, err := sharding.ControllerOptions(ring, controller.Options[string]{}, nil)
	if err != nil {
		panic(err)
	}
	c, err := controller.New("deployments", controller.ReconcilerFunc[string](
		func(context.Context, string) (controller.Result, error) { return controller.Result{}, nil }), opts)
	if err != nil {
		panic(err)
	}
	fmt.Println("on every replica:", !c.NeedLeaderElection())
	fmt.Println("reconcile timeout:", opts.ReconcileTimeout)
	// Output:
	// on every replica: true
	// reconcile timeout: 4s
}
