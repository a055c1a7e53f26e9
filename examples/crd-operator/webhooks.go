package main

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
)

// The paths the webhook configurations (manifests/webhook/manifests.yaml,
// generated from the markers below) and the CRD's conversion webhook
// (spec.conversion, which go generate writes with internal/crdconversion)
// call.
const (
	defaultPath    = "/default-webapp"
	validatePath   = "/validate-webapp"
	conversionPath = "/convert"
)

// The webhook configurations, which go generate writes to
// manifests/webhook/manifests.yaml. Both are named webhookConfigurations,
// whose caBundle the elected replica writes (so none is set here). The
// API server calls the Service webapp-operator-webhook
// (manifests/service.yaml) in the operator's namespace.
//
// They are registered for v1 only: with the configurations' default
// matchPolicy, Equivalent, the API server converts a v1alpha1 request to v1
// (through the conversion webhook) before it calls them, so one version of
// the checks serves both.
//
// Safe defaults:
//   - The namespaceSelector (in patch, which controller-gen merges into
//     each webhook) leaves the operator's own namespace, ctrlkit-system,
//     out, so that a webhook that is down never blocks what the operator
//     needs to come back.
//   - failurePolicy=fail for CREATE and UPDATE: a WebApp admitted without
//     its defaults or checks while the webhook is down would be a
//     different WebApp. With no replica answering, the client sees the
//     error and can retry; timeoutSeconds bounds its wait. A replica that
//     stops loses no request: every replica serves, a stopping one lets
//     the API server close its connections first (webhook.Server's
//     drain), and the Service sends new ones to the others.
//   - A DELETE is never blocked by a webhook that is down: the only
//     webhook that sees deletes has failurePolicy=ignore (and only
//     warns), and the matchConditions of the others skip updates of a
//     WebApp being deleted, so that the operator can always remove its
//     finalizer.
//
// +kubebuilder:webhookconfiguration:mutating=true,name=webapp-operator
// +kubebuilder:webhookconfiguration:mutating=false,name=webapp-operator
//
// +kubebuilder:webhook:mutating=true,name=default.webapps.example.ctrlkit.dev,path=/default-webapp,serviceName=webapp-operator-webhook,serviceNamespace=ctrlkit-system,groups=example.ctrlkit.dev,versions=v1,resources=webapps,verbs=create;update,failurePolicy=fail,sideEffects=None,timeoutSeconds=5,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["ctrlkit-system"]}]},"matchConditions":[{"name":"not-being-deleted","expression":"!has(object.metadata.deletionTimestamp)"}]}`
// +kubebuilder:webhook:mutating=false,name=validate.webapps.example.ctrlkit.dev,path=/validate-webapp,serviceName=webapp-operator-webhook,serviceNamespace=ctrlkit-system,groups=example.ctrlkit.dev,versions=v1,resources=webapps,verbs=create;update,failurePolicy=fail,sideEffects=None,timeoutSeconds=5,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["ctrlkit-system"]}]},"matchConditions":[{"name":"not-being-deleted","expression":"!has(object.metadata.deletionTimestamp)"}]}`
// +kubebuilder:webhook:mutating=false,name=validate-delete.webapps.example.ctrlkit.dev,path=/validate-webapp,serviceName=webapp-operator-webhook,serviceNamespace=ctrlkit-system,groups=example.ctrlkit.dev,versions=v1,resources=webapps,verbs=delete,failurePolicy=ignore,sideEffects=None,timeoutSeconds=5,admissionReviewVersions=v1,patch=`{"namespaceSelector":{"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"NotIn","values":["ctrlkit-system"]}]}}`

// nameLabel is the label the defaulter sets from the WebApp's name, which
// selectors and dashboards group by.
const nameLabel = "app.kubernetes.io/name"

// defaultWebApp labels a WebApp with its name unless it has the label.
// The CRD's schema defaults replicas and port; a webhook is for defaults
// computed in Go.
func defaultWebApp(_ context.Context, app *v1.WebApp) error {
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

func (v webAppValidator) validator() admission.Validator[v1.WebApp] {
	return admission.ValidatorFuncs[v1.WebApp]{Create: v.create, Update: v.update, Delete: v.delete}
}

// create denies a WebApp whose Deployment or Service name is taken, so the
// user hears of it at once instead of through a NameConflict condition;
// the reconciler still reports a conflict that arises later.
func (v webAppValidator) create(ctx context.Context, app *v1.WebApp) (admission.Warnings, error) {
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
func (v webAppValidator) update(_ context.Context, _, app *v1.WebApp) (admission.Warnings, error) {
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
func (v webAppValidator) delete(_ context.Context, app *v1.WebApp) (admission.Warnings, error) {
	if app.Status.AvailableReplicas > 0 {
		return admission.Warnings{fmt.Sprintf("WebApp %s still has %d available replicas; its Deployment and Service are deleted with it", app.Name, app.Status.AvailableReplicas)}, nil
	}
	return nil, nil
}

// imageWarnings warns of an image without a tag or digest, which pulls
// whatever :latest is at the time.
func imageWarnings(app *v1.WebApp) admission.Warnings {
	if app.Spec.Image.Tag != "" {
		return nil
	}
	return admission.Warnings{fmt.Sprintf("spec.image %q has no tag: the WebApp runs whatever :latest is when a pod starts", app.Spec.Image.Reference())}
}
