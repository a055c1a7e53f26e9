package main

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
)

// nameConflictError is the error for a Deployment or Service that exists
// under the WebApp's name and is not controlled by it. Adopting it would
// take a user's object over silently, so the WebApp waits instead.
type nameConflictError struct {
	kind, name string
}

func (e *nameConflictError) Error() string {
	return fmt.Sprintf("%s %s already exists and is not owned by this WebApp", e.kind, e.name)
}

// controlledBy makes app the controller of obj, unless obj already exists
// (it was read from the server, so it has a resourceVersion) and app does
// not control it.
func controlledBy(app *v1.WebApp, kind string, obj metav1.Object) error {
	if obj.GetResourceVersion() != "" && !metav1.IsControlledBy(obj, app) {
		return &nameConflictError{kind: kind, name: obj.GetName()}
	}
	return controllerutil.SetControllerReference(app, v1.Kind, obj)
}

// labels select a WebApp's pods.
func labels(app *v1.WebApp) map[string]string {
	return map[string]string{"app.kubernetes.io/name": "webapp", "app.kubernetes.io/instance": app.Name}
}

// applyChildren creates or updates the WebApp's Deployment, Service and
// registry entry, and sets status from the Deployment.
func (r *reconciler) applyChildren(ctx context.Context, app *v1.WebApp, status *v1.WebAppStatus) error {
	ns := app.Namespace
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app.Name}}
	d, _, err := controllerutil.CreateOrUpdate(ctx,
		controllerutil.Cached(r.deployments.Deployments(ns), r.kube.AppsV1().Deployments(ns)), d,
		func(d *appsv1.Deployment) error {
			if err := controlledBy(app, "Deployment", d); err != nil {
				return err
			}
			d.Spec.Replicas = ptr.To(ptr.Deref(app.Spec.Replicas, 1))
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: labels(app)} // immutable: the same every time
			d.Spec.Template.Labels = labels(app)
			c := container(d)
			c.Image = app.Spec.Image.Reference()
			c.Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: app.Spec.ContainerPort, Protocol: corev1.ProtocolTCP}}
			return nil
		})
	if err != nil {
		return err
	}
	controller.RecordWrite(ctx, r.deploymentInformer, d)
	setStatusFromDeployment(app, status, d)

	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: app.Name}}
	s, _, err = controllerutil.CreateOrPatch(ctx,
		controllerutil.Cached(r.services.Services(ns), r.kube.CoreV1().Services(ns)), s,
		func(s *corev1.Service) error {
			if err := controlledBy(app, "Service", s); err != nil {
				return err
			}
			s.Spec.Selector = labels(app)
			s.Spec.Ports = []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromString("http"), Protocol: corev1.ProtocolTCP}}
			return nil
		})
	if err != nil {
		return err
	}
	controller.RecordWrite(ctx, r.serviceInformer, s)
	return r.writeRegistryEntry(ctx, app)
}

// container returns the Deployment's one container, adding it if need be.
// Only the fields set here are the operator's; the API server's defaults
// on the others (pull policy, termination message path) stay, so an
// unchanged WebApp writes nothing.
func container(d *appsv1.Deployment) *corev1.Container {
	spec := &d.Spec.Template.Spec
	if len(spec.Containers) != 1 || spec.Containers[0].Name != "app" {
		spec.Containers = []corev1.Container{{Name: "app"}}
	}
	return &spec.Containers[0]
}

// registryName is the name of app's ConfigMap in the registry namespace.
func registryName(app *v1.WebApp) string { return app.Namespace + "." + app.Name }

// writeRegistryEntry records app in the registry namespace: an object in
// another namespace, which an owner reference cannot tie to app (the
// garbage collector ignores cross-namespace owners), hence the finalizer.
func (r *reconciler) writeRegistryEntry(ctx context.Context, app *v1.WebApp) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: r.registry, Name: registryName(app)}}
	_, _, err := controllerutil.CreateOrPatch(ctx, r.kube.CoreV1().ConfigMaps(r.registry), cm, func(cm *corev1.ConfigMap) error {
		cm.Data = map[string]string{
			"namespace": app.Namespace,
			"name":      app.Name,
			"service":   fmt.Sprintf("%s.%s.svc", app.Name, app.Namespace),
			"image":     app.Spec.Image.Reference(),
		}
		return nil
	})
	return err
}

// deleteRegistryEntry is the finalizer's cleanup. It is idempotent: an
// entry already gone is fine.
func (r *reconciler) deleteRegistryEntry(ctx context.Context, app *v1.WebApp) error {
	err := r.kube.CoreV1().ConfigMaps(r.registry).Delete(ctx, registryName(app), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
