package main

import (
	"context"
	"fmt"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/handler"
)

// startController runs ctrlkit's Deployment controller in this process,
// watching namespace ns only, and returns a function that stops it and waits
// for it to be done.
func startController(ctx context.Context, cfg *rest.Config, ns string) (stop func() error, err error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	// Informers as the deployment-controller binary makes them: no
	// managedFields in the caches.
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns),
		informers.WithTransform(handler.StripManagedFields))
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events(ns)})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "ctrlkit-deployment-controller"})

	ctrl, _, err := deployment.NewController(client, factory, recorder, deployment.Options{
		Controller: controller.Options[string]{
			Workers: 5,
			// The demo prints the rollout; the controller's own log lines
			// (optimistic-concurrency conflicts, retried at once) would
			// drown it. logr.Discard() is the zero Logger, which means the
			// logger of Run's context, so a sink that drops everything.
			Logger: funcr.New(func(prefix, args string) {}, funcr.Options{}),
		},
	})
	if err != nil {
		broadcaster.Shutdown()
		return nil, err
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	factory.Start(runCtx.Done())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(runCtx) }()
	if err := ctrl.WaitForSync(ctx); err != nil {
		cancel()
		<-done
		factory.Shutdown()
		broadcaster.Shutdown()
		return nil, fmt.Errorf("wait for the informers: %w", err)
	}
	return func() error {
		cancel()
		err := <-done
		factory.Shutdown()
		broadcaster.Shutdown()
		return err
	}, nil
}
