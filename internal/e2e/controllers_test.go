//go:build e2e

package e2e

import (
	"context"
	"testing"

	"github.com/go-logr/logr/testr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/handler"
)

// deploymentController is one of the Deployment controllers the scenarios
// run against.
type deploymentController struct {
	name string
	cp   *sharedControlPlane
	// start runs the controller for namespace ns until the test ends; nil
	// when the control plane's kube-controller-manager runs it.
	start func(t *testing.T, cp *envtest.Environment, ns string)
}

// deploymentControllers are compared on every scenario: upstream's proves
// that the scenario and its expectations are right, ours must pass the same.
var deploymentControllers = []deploymentController{
	{name: "upstream", cp: &upstreamCP},
	{name: "ctrlkit", cp: &ourCP, start: startOurController},
}

// forEachController runs a scenario against every Deployment controller,
// each in a namespace of its own.
func forEachController(t *testing.T, scenario func(t *testing.T, client kubernetes.Interface, ns string)) {
	for _, dc := range deploymentControllers {
		t.Run(dc.name, func(t *testing.T) {
			cp := dc.cp.get(t)
			client := cp.Client()
			ns := newNamespace(t, client)
			if dc.start != nil {
				dc.start(t, cp, ns)
			}
			scenario(t, client, ns)
		})
	}
}

// startOurController runs ctrlkit's Deployment controller in the test
// process, on namespace ns, until the test ends; kube-controller-manager of
// ourCP runs no Deployment controller.
func startOurController(t *testing.T, cp *envtest.Environment, ns string) {
	t.Helper()
	client, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	runOurController(t, client, client, ns, controller.Options[string]{})
}

// runOurController runs ctrlkit's Deployment controller on namespace ns
// until the test ends, with 5 workers and the test's logger added to opts.
// Its informers list and watch through watcher, and it writes through
// writer.
func runOurController(t *testing.T, writer, watcher kubernetes.Interface, ns string, opts controller.Options[string]) {
	t.Helper()
	// Informers as the deployment-controller binary makes them, managedFields
	// stripped, so every scenario checks the transform on a real API server too.
	factory := informers.NewSharedInformerFactoryWithOptions(watcher, 0, informers.WithNamespace(ns),
		informers.WithTransform(handler.StripManagedFields))
	broadcaster := record.NewBroadcaster(record.WithContext(t.Context()))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: writer.CoreV1().Events(ns)})
	recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "ctrlkit-deployment-controller"})
	opts.Workers, opts.Logger = 5, testr.New(t)
	ctrl, _, err := deployment.NewController(writer, factory, recorder, deployment.Options{Controller: opts})
	if err != nil {
		broadcaster.Shutdown()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controller run: %v", err)
		}
		factory.Shutdown()
		broadcaster.Shutdown()
	})
	if err := ctrl.WaitForSync(t.Context()); err != nil {
		t.Fatal(err)
	}
}
