package main

import (
	"context"
	"io"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/examples/internal/managerflags"
	"github.com/ctrlkit/ctrlkit/handler"
)

// run parses args, connects to the API server and runs the controller until
// ctx is cancelled.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	return managerflags.Run(ctx, args, stdout, component, parseOptions, newManager)
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
	recorder := mgr.CoreV1EventRecorderFor("deployment-controller")
	// No periodic resync: kube-controller-manager's default resync only
	// replays the cache, and every change already arrives as an event.
	// managedFields are never read: dropping them roughly halves the caches.
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTransform(handler.StripManagedFields))
	copts := o.controllerOptions()
	copts.Logger, copts.Registry = klog.FromContext(ctx), mgr.Registry()
	if o.ShardRing != "" {
		ring, err := newShardRing(ctx, o, client, factory, mgr)
		if err != nil {
			return nil, err
		}
		copts.Gate, copts.NoLeaderElection = sharding.StringKeyGate(ring), true
	}
	ctrl, _, err := deployment.NewController(client, factory, recorder, deployment.Options{Controller: copts})
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

// newShardRing joins the ring o.ShardRing, with the leader election's
// namespace and timings, and makes factory's Deployment, ReplicaSet and
// Pod informers cache only the ring member's namespaces. A Deployment, its
// ReplicaSets and its Pods share a namespace, so they share a shard.
func newShardRing(ctx context.Context, o *options, client kubernetes.Interface, factory informers.SharedInformerFactory, mgr *manager.Manager) (*sharding.Ring, error) {
	le := o.Manager.LeaderElection
	ring, err := sharding.New(sharding.Options{
		Client: client, Namespace: le.Namespace, Name: o.ShardRing,
		LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
		Logger: klog.FromContext(ctx), Registry: mgr.Registry(),
	})
	if err != nil {
		return nil, err
	}
	sharding.Informer(factory, &appsv1.Deployment{},
		sharding.FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments(metav1.NamespaceAll)), ring, sharding.Namespaced)
	sharding.Informer(factory, &appsv1.ReplicaSet{},
		sharding.FromClient[*appsv1.ReplicaSetList](client.AppsV1().ReplicaSets(metav1.NamespaceAll)), ring, sharding.Namespaced)
	sharding.Informer(factory, &corev1.Pod{},
		sharding.FromClient[*corev1.PodList](client.CoreV1().Pods(metav1.NamespaceAll)), ring, sharding.Namespaced)
	return ring, mgr.Add(ring)
}
