package main

import (
	"context"
	"io"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/examples/internal/otlptracing"
	"github.com/ctrlkit/ctrlkit/handler"
)

// run parses args, connects to the API server and runs the manager until
// ctx is cancelled; with --otlp-endpoint, its reconciles and the API
// requests they make are traced.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	return otlptracing.RunManager(ctx, args, stdout, component, parseOptions, newManager)
}

// newManager wires the Deployment controller into a manager.
func newManager(ctx context.Context, o *options, client kubernetes.Interface) (*manager.Manager, error) {
	mgr, err := manager.New(o.ManagerOptions(client))
	if err != nil {
		return nil, err
	}
	// core/v1 events from "deployment-controller", as
	// kube-controller-manager's Deployment controller records them; the
	// manager writes them until the end of its shutdown.
	recorder := mgr.EventRecorderFor("deployment-controller")
	// No periodic resync: kube-controller-manager's default resync only
	// replays the cache, and every change already arrives as an event.
	// managedFields are never read: dropping them roughly halves the caches.
	// The factory is the controller's alone, so its pods keep only what the
	// controller reads (deployment.TrimPod): pods are most of the cache.
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTransform(trimCache))
	copts := o.controllerOptions()
	copts.Logger, copts.Registry = klog.FromContext(ctx), mgr.Registry()
	// With --shard-ring, the manager runs a ring: the controller's
	// informers list and watch only this replica's namespaces, and the
	// controller admits only their keys, on every replica, each reconcile
	// bounded by the ring's lease. Without, both calls change nothing.
	if err := sharding.Shard(factory, mgr.Ring(),
		sharding.ResourceOf(client.AppsV1().Deployments(metav1.NamespaceAll), sharding.Namespaced),
		sharding.ResourceOf(client.AppsV1().ReplicaSets(metav1.NamespaceAll), sharding.Namespaced),
		sharding.ResourceOf(client.CoreV1().Pods(metav1.NamespaceAll), sharding.Namespaced),
	); err != nil {
		return nil, err
	}
	if copts, err = sharding.ControllerOptions(mgr.Ring(), copts, nil); err != nil {
		return nil, err
	}
	ctrl, _, err := deployment.NewController(client, factory, recorder, deployment.Options{Controller: copts, NamespaceLanes: &o.NamespaceLanes})
	if err != nil {
		return nil, err
	}
	if err := mgr.Add(ctrl); err != nil {
		return nil, err
	}
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		return nil, err
	}
	return mgr, nil
}

// trimCache is the factory's transform: managedFields off every object,
// and pods trimmed to what the Deployment controller reads.
func trimCache(obj any) (any, error) {
	obj, err := handler.StripManagedFields(obj)
	if err != nil {
		return nil, err
	}
	return deployment.TrimPod(obj)
}
