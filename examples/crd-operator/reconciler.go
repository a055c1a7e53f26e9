package main

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
)

// finalizer keeps a WebApp until its registry ConfigMap is deleted.
const finalizer = "example.ctrlkit.dev/registry"

// webAppClient writes WebApps in one namespace: a typed.Client in the
// program, a fake in the tests.
type webAppClient interface {
	controllerutil.Updater[*v1.WebApp]
	ApplyStatus(ctx context.Context, app typed.ApplyConfiguration, opts metav1.ApplyOptions) (*v1.WebApp, error)
}

// reconciler makes a WebApp's Deployment, Service and registry ConfigMap
// what its spec says, and reports on them in its status. Reads come from
// the informers' caches; writes go to the API server.
type reconciler struct {
	webApps     typed.Lister[*v1.WebApp]
	webAppsIn   func(namespace string) webAppClient
	kube        kubernetes.Interface
	deployments appslisters.DeploymentLister
	services    corelisters.ServiceLister
	registry    string // the namespace of the registry ConfigMaps
	recorder    events.EventRecorder

	// The informers behind the listers. A write recorded against one
	// (controller.RecordWrite) holds the WebApp's next reconcile until that
	// cache has it, so that it does not act on what it just replaced.
	webAppInformer, deploymentInformer, serviceInformer cache.SharedInformer
}

// Reconcile handles the WebApp named by key, "namespace/name".
func (r *reconciler) Reconcile(ctx context.Context, key string) (controller.Result, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return controller.Result{}, controller.TerminalError(err)
	}
	app, err := r.webApps.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil // deleted: the garbage collector removes what it owned
	}
	if err != nil {
		return controller.Result{}, err
	}

	// Add the finalizer first, so that nothing is created that a deletion
	// could leave behind; on deletion, clean up and stop.
	app, deleting, err := controllerutil.Finalize(ctx, r.webAppsIn(namespace), app, finalizer, r.deleteRegistryEntry)
	if err != nil || deleting {
		return controller.Result{}, err
	}
	controller.RecordWrite(ctx, r.webAppInformer, app)

	status := app.Status.DeepCopy()
	err = r.applyChildren(ctx, app, status)
	var conflict *nameConflictError
	switch {
	case errors.As(err, &conflict):
		// The user must rename or delete the other object: say so and wait.
		// Retrying would fail the same way; the watch of objects in the way
		// (inTheWayOf) wakes this WebApp when the other object is deleted.
		r.recorder.Eventf(app, nil, corev1.EventTypeWarning, reasonNameConflict, "Reconcile", "%v", conflict)
		setConflict(app, status, conflict.Error())
		err = controller.TerminalError(err)
	case err != nil:
		return controller.Result{}, err
	}
	if statusErr := r.updateStatus(ctx, app, status); statusErr != nil {
		return controller.Result{}, statusErr
	}
	return controller.Result{}, err
}

// updateStatus applies status if it changed (see statusApply).
func (r *reconciler) updateStatus(ctx context.Context, app *v1.WebApp, status *v1.WebAppStatus) error {
	status.ObservedGeneration = app.Generation
	if equality.Semantic.DeepEqual(&app.Status, status) {
		return nil
	}
	app, err := r.webAppsIn(app.Namespace).ApplyStatus(ctx, statusApply(app, status),
		metav1.ApplyOptions{FieldManager: component, Force: true})
	if err != nil {
		return err
	}
	controller.RecordWrite(ctx, r.webAppInformer, app)
	return nil
}
