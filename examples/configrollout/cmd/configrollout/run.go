package main

import (
	"context"
	"io"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/examples/configrollout"
	"github.com/ctrlkit/ctrlkit/examples/internal/otlptracing"
	"github.com/ctrlkit/ctrlkit/handler"
)

// run parses args, connects to the API server and runs the manager until
// ctx is cancelled; with --otlp-endpoint, its reconciles and the API
// requests they make are traced.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	return otlptracing.RunManager(ctx, args, stdout, component, parseOptions, newManager)
}

// newManager wires the controller into a manager.
func newManager(ctx context.Context, o *options, client kubernetes.Interface) (*manager.Manager, error) {
	mgr, err := manager.New(o.ManagerOptions(client))
	if err != nil {
		return nil, err
	}
	recorder := mgr.EventRecorderFor(component)
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(o.Namespace),
		informers.WithTransform(handler.StripManagedFields))
	ctrl, err := configrollout.New(client, factory, recorder, controller.Options[string]{
		Workers:  o.ConcurrentSyncs,
		Logger:   klog.FromContext(ctx),
		Registry: mgr.Registry(),
	})
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
