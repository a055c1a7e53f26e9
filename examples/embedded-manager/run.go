package main

import (
	"context"
	"fmt"
	"io"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/examples/configrollout"
	"github.com/ctrlkit/ctrlkit/examples/internal/otlptracing"
)

// run parses args, connects to the API server and runs the manager until
// ctx is cancelled; with --otlp-endpoint, its reconciles and the API
// requests they make are traced.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	return otlptracing.RunManager(ctx, args, stdout, component, parseOptions, newManager)
}

// newManager builds one manager with the enabled controllers on one shared
// informer factory.
func newManager(ctx context.Context, o *options, client kubernetes.Interface) (*manager.Manager, error) {
	enabled, err := o.enabled()
	if err != nil {
		return nil, err
	}
	mgr, err := manager.New(o.ManagerOptions(client))
	if err != nil {
		return nil, err
	}
	// One factory for both: the Deployment informer, its cache and its
	// watch are shared. Each controller adds its own index to it.
	factory := informers.NewSharedInformerFactory(client, 0)
	logger := klog.FromContext(ctx)
	for _, name := range enabled {
		var c *controller.Controller[string]
		switch name {
		case "deployment":
			c, _, err = deployment.NewController(client, factory, mgr.EventRecorderFor("deployment-controller"), deployment.Options{
				Controller: controller.Options[string]{Workers: o.ConcurrentDeploymentSyncs, Logger: logger, Registry: mgr.Registry()},
			})
		case "configrollout":
			c, err = configrollout.New(client, factory, mgr.EventRecorderFor(configrollout.Name), controller.Options[string]{
				Workers: o.ConcurrentConfigSyncs, Logger: logger, Registry: mgr.Registry(),
			})
		}
		if err != nil {
			return nil, fmt.Errorf("controller %s: %w", name, err)
		}
		if err := mgr.Add(c); err != nil {
			return nil, err
		}
		logger.V(1).Info("Controller enabled", "controller", name)
	}
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		return nil, err
	}
	return mgr, nil
}
