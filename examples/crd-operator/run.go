package main

import (
	"context"
	"fmt"
	"io"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/builder"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	"github.com/ctrlkit/ctrlkit/controller/webhook/certs"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/handler"
)

func init() {
	// The event recorder finds a WebApp's kind in client-go's scheme.
	if err := v1.AddToScheme(scheme.Scheme); err != nil {
		panic(err)
	}
}

// run parses args, connects to the API server and runs the operator until
// ctx is cancelled.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	o, err := parseOptions(args, stdout)
	if err != nil {
		return err
	}
	config, err := o.RESTConfig(component)
	if err != nil {
		return err
	}
	mgr, err := newManager(ctx, o, config)
	if err != nil {
		return err
	}
	return mgr.Run(ctx)
}

// newManager wires the operator into a manager talking to config's API
// server.
func newManager(ctx context.Context, o *options, config *rest.Config) (*manager.Manager, error) {
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("creating the client: %w", err)
	}
	webApps, err := typed.NewClient[*v1.WebApp](config, v1.Resource)
	if err != nil {
		return nil, err
	}
	mo := o.ManagerOptions(kube)
	var sm *certs.SelfManaged
	if o.Webhooks.BindAddress != "" {
		crds, err := dynamic.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		if sm, err = newSelfManaged(kube, crds, o.Webhooks); err != nil {
			return nil, err
		}
		if o.Webhooks.MetricsFromSecret {
			mo.MetricsTLS.TLSConfig = sm.TLSConfig()
		}
	}
	mgr, err := manager.New(mo)
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithTransform(handler.StripManagedFields))
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		return nil, err
	}
	// With --shard-ring, the manager runs a ring, and these informers list
	// and watch only this replica's namespaces; without, Shard does
	// nothing. It must come before anything asks the factory for them.
	if err := sharding.Shard(factory, mgr.Ring(),
		sharding.ResourceOf(webApps, sharding.Namespaced),
		sharding.ResourceOf(kube.AppsV1().Deployments(metav1.NamespaceAll), sharding.Namespaced),
		sharding.ResourceOf(kube.CoreV1().Services(metav1.NamespaceAll), sharding.Namespaced),
	); err != nil {
		return nil, err
	}
	webAppInformer := typed.NewSharedInformer(factory, webApps, typed.InformerOptions{})
	deployments, services := factory.Apps().V1().Deployments(), factory.Core().V1().Services()

	r := &reconciler{
		webApps:     webAppInformer.Lister(),
		webAppsIn:   func(ns string) webAppClient { return webApps.Namespace(ns) },
		kube:        kube,
		deployments: deployments.Lister(),
		services:    services.Lister(),
		registry:    o.RegistryNamespace,
		recorder:    mgr.EventsV1RecorderFor(component),

		webAppInformer:     webAppInformer.Informer(),
		deploymentInformer: deployments.Informer(),
		serviceInformer:    services.Informer(),
	}
	_, err = builder.ControllerManagedBy(mgr, "webapp", handler.ObjectKey).
		For(webAppInformer.Informer(), v1.Resource.GroupKind(), v1.Resource.Scope()).
		Owns(deployments.Informer()).
		Owns(services.Informer()).
		Watches(deployments.Informer(), inTheWayOf(r.webApps)).
		Watches(services.Informer(), inTheWayOf(r.webApps)).
		Sharded(). // on the ring's replicas, each WebApp by one of them
		WithOptions(controller.Options[string]{Workers: o.ConcurrentSyncs, Logger: klog.FromContext(ctx), Registry: mgr.Registry()}).
		Complete(r)
	if err != nil {
		return nil, err
	}
	if sm != nil {
		if err := setupWebhooks(mgr, kube, o.Webhooks, sm); err != nil {
			return nil, err
		}
	}
	if o.MigrateStorage {
		crds, err := dynamic.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		if err := mgr.Add(&storageMigration{crds: crds, discovery: kube.Discovery(), namespace: o.Webhooks.Namespace,
			method: o.MigrationMethod, recorder: mgr.EventsV1RecorderFor(component), poll: 5 * time.Second}); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// inTheWayOf maps the creation and deletion of a Deployment or Service
// that a WebApp of the same name does not control to that WebApp, so that
// a NameConflict clears by itself once the other object is gone. Its
// updates do not matter to the WebApp. The WebApp's own objects are mapped
// by Owns.
func inTheWayOf(webApps typed.Lister[*v1.WebApp]) handler.Handler[string] {
	return handler.Map(func(obj metav1.Object) []string {
		app, err := webApps.Namespace(obj.GetNamespace()).Get(obj.GetName())
		if err != nil || metav1.IsControlledBy(obj, app) {
			return nil
		}
		return []string{handler.ObjectKey(app)}
	}).WithPredicates(handler.OnlyEventTypes(handler.Create, handler.Delete))
}
