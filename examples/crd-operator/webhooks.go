package main

import (
	"context"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1alpha1"
)

// The paths the webhook configurations (manifests/webhooks.yaml) call.
const (
	defaultPath  = "/default-webapp"
	validatePath = "/validate-webapp"
)

// nameLabel is the label the defaulter sets from the WebApp's name, which
// selectors and dashboards group by.
const nameLabel = "app.kubernetes.io/name"

// defaultWebApp labels a WebApp with its name unless it has the label.
// The CRD's schema defaults replicas and port; a webhook is for defaults
// computed in Go.
func defaultWebApp(_ context.Context, app *v1alpha1.WebApp) error {
	if _, ok := app.Labels[nameLabel]; !ok && app.Name != "" {
		if app.Labels == nil {
			app.Labels = map[string]string{}
		}
		app.Labels[nameLabel] = app.Name
	}
	return nil
}

// webAppValidator checks what the CRD's schema and CEL rules cannot: that
// the name is not taken by a Deployment or Service the WebApp would not
// control, which needs reading other objects. It reads them from the API
// server, not from the operator's informers: with --shard-ring a replica's
// caches hold only its own namespaces, and any replica may be called.
type webAppValidator struct{ kube kubernetes.Interface }

func (v webAppValidator) validator() admission.Validator[v1alpha1.WebApp] {
	return admission.ValidatorFuncs[v1alpha1.WebApp]{Create: v.create, Update: v.update, Delete: v.delete}
}

// create denies a WebApp whose Deployment or Service name is taken, so the
// user hears of it at once instead of through a NameConflict condition;
// the reconciler still reports a conflict that arises later.
func (v webAppValidator) create(ctx context.Context, app *v1alpha1.WebApp) (admission.Warnings, error) {
	var errs field.ErrorList
	name := field.NewPath("metadata", "name")
	if _, err := v.kube.AppsV1().Deployments(app.Namespace).Get(ctx, app.Name, metav1.GetOptions{}); err == nil {
		errs = append(errs, field.Invalid(name, app.Name, "a Deployment of this name exists; the WebApp would not control it"))
	} else if !apierrors.IsNotFound(err) {
		return nil, err
	}
	if _, err := v.kube.CoreV1().Services(app.Namespace).Get(ctx, app.Name, metav1.GetOptions{}); err == nil {
		errs = append(errs, field.Invalid(name, app.Name, "a Service of this name exists; the WebApp would not control it"))
	} else if !apierrors.IsNotFound(err) {
		return nil, err
	}
	return imageWarnings(app), errs.ToAggregate()
}

// update warns; it denies nothing that the schema allows.
func (v webAppValidator) update(_ context.Context, _, app *v1alpha1.WebApp) (admission.Warnings, error) {
	warnings := imageWarnings(app)
	if app.Spec.Replicas != nil && *app.Spec.Replicas == 0 {
		warnings = append(warnings, fmt.Sprintf("WebApp %s has 0 replicas: its Service serves nothing", app.Name))
	}
	return warnings, nil
}

// delete warns when a WebApp still serves. It never denies: the webhook
// for DELETE has failurePolicy Ignore, so that a webhook that is down
// never blocks a deletion, and a check that can be skipped must not be
// one that matters.
func (v webAppValidator) delete(_ context.Context, app *v1alpha1.WebApp) (admission.Warnings, error) {
	if app.Status.AvailableReplicas > 0 {
		return admission.Warnings{fmt.Sprintf("WebApp %s still has %d available replicas; its Deployment and Service are deleted with it", app.Name, app.Status.AvailableReplicas)}, nil
	}
	return nil, nil
}

// imageWarnings warns of an image without a tag or digest, which pulls
// whatever :latest is at the time.
func imageWarnings(app *v1alpha1.WebApp) admission.Warnings {
	image := app.Spec.Image
	if strings.Contains(image, "@") || strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") {
		return nil
	}
	return admission.Warnings{fmt.Sprintf("spec.image %q has no tag: the WebApp runs whatever :latest is when a pod starts", image)}
}
