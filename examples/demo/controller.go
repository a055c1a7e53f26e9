package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/handler"
)

// eventComponent is the source of the demo controllers' events.
const eventComponent = "ctrlkit-deployment-controller"

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
	return runController(ctx, client, factory, ns, corev1.EventSource{Component: eventComponent}, deployment.Options{}, nil)
}

// runController runs ctrlkit's Deployment controller on factory's
// informers, recording events in eventsNS (all namespaces if empty) from
// source, with dopts (its controller's Workers and Logger are set here), and alongside, if
// not nil, for as long as the controller runs: a shard ring, which the
// informers wait for. It returns once the informers have synced; stop ends
// both and waits for them.
func runController(ctx context.Context, client kubernetes.Interface, factory informers.SharedInformerFactory,
	eventsNS string, source corev1.EventSource, dopts deployment.Options, alongside func(context.Context) error,
) (stop func() error, err error) {
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: client.CoreV1().Events(eventsNS)})
	recorder := broadcaster.NewRecorder(scheme.Scheme, source)

	copts := &dopts.Controller
	copts.Workers = 5
	// The demo prints the rollout; the controller's own log lines
	// (optimistic-concurrency conflicts, retried at once) would drown it.
	// logr.Discard() is the zero Logger, which means the logger of Run's
	// context, so a sink that drops everything.
	copts.Logger = funcr.New(func(prefix, args string) {}, funcr.Options{})
	ctrl, _, err := deployment.NewController(client, factory, recorder, dopts)
	if err != nil {
		broadcaster.Shutdown()
		return nil, err
	}

	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan error, 2)
	running := 1
	if alongside != nil {
		running++
		go func() { done <- alongside(runCtx) }()
	}
	factory.Start(runCtx.Done())
	go func() { done <- ctrl.Run(runCtx) }()
	stop = func() error {
		cancel()
		var errs []error
		for range running {
			errs = append(errs, <-done)
		}
		factory.Shutdown()
		broadcaster.Shutdown()
		return errors.Join(errs...)
	}
	if err := ctrl.WaitForSync(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("wait for the informers: %w", err), stop())
	}
	return stop, nil
}
