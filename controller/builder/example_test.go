package builder_test

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/builder"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/handler"
)

// A Deployment controller that owns ReplicaSets, under a manager: a
// ReplicaSet's events wake the Deployment that controls it.
func ExampleControllerManagedBy() {
	client := fake.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})
	factory := informers.NewSharedInformerFactory(client, 0)
	mgr, err := manager.New(manager.Options{Logger: quiet})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		fmt.Println(err)
		return
	}

	ctx, stop := context.WithCancel(context.Background())
	reconcile := func(_ context.Context, key string) (controller.Result, error) {
		fmt.Println("reconcile", key)
		stop() // one is enough for the example
		return controller.Result{}, nil
	}
	_, err = builder.ControllerManagedBy(mgr, "deployments", handler.ObjectKey).
		For(factory.Apps().V1().Deployments().Informer(), schema.GroupKind{Group: "apps", Kind: "Deployment"}, meta.RESTScopeNamespace).
		Owns(factory.Apps().V1().ReplicaSets().Informer()).
		WithOptions(controller.Options[string]{Workers: 2}).
		Complete(controller.ReconcilerFunc[string](reconcile))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := mgr.Run(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// reconcile default/web
}

// A sharded controller: the manager runs a ring, the factory's informers
// list and watch only this replica's range, and the controller reconciles
// its keys on every replica. Alone in its ring, this replica owns them all.
func ExampleBuilder_Sharded() {
	client := fake.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})
	mgr, err := manager.New(manager.Options{Logger: quiet, Client: client,
		Lease: lease.Config{Namespace: "kube-system",
			LeaseDuration: 2 * time.Second, RenewDeadline: time.Second, RetryPeriod: 100 * time.Millisecond},
		Sharding: manager.Sharding{Ring: "deployments"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	// Before anything asks the factory for these informers.
	if err := sharding.Shard(factory, mgr.Ring(),
		sharding.ResourceOf(client.AppsV1().Deployments(""), sharding.Namespaced),
		sharding.ResourceOf(client.AppsV1().ReplicaSets(""), sharding.Namespaced),
	); err != nil {
		fmt.Println(err)
		return
	}
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		fmt.Println(err)
		return
	}

	ctx, stop := context.WithCancel(context.Background())
	reconcile := func(_ context.Context, key string) (controller.Result, error) {
		fmt.Println("reconcile", key)
		stop()
		return controller.Result{}, nil
	}
	_, err = builder.ControllerManagedBy(mgr, "deployments", handler.ObjectKey).
		For(factory.Apps().V1().Deployments().Informer(), schema.GroupKind{Group: "apps", Kind: "Deployment"}, meta.RESTScopeNamespace).
		Owns(factory.Apps().V1().ReplicaSets().Informer()).
		Sharded().
		Complete(controller.ReconcilerFunc[string](reconcile))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := mgr.Run(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// reconcile default/web
}
