package main

import (
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	webappac "github.com/ctrlkit/ctrlkit/examples/crd-operator/applyconfiguration/api/v1"
)

// ownConditions are the condition types the operator sets.
var ownConditions = []string{v1.Available, v1.Progressing,
	controllerutil.ConditionReady, controllerutil.ConditionReconciling, controllerutil.ConditionStalled}

// statusApply is the status the operator applies: every status field it
// sets, zero values included (an apply configuration sends what is set,
// not what is non-zero), and its own conditions, and nothing else. status
// was computed from the status read, so it may hold conditions another
// field manager added: they are left out, so that the operator neither
// owns them nor, as their last owner, ever removes them. With the CRD's
// listType=map, the API server merges the conditions by type.
func statusApply(app *v1.WebApp, status *v1.WebAppStatus) *webappac.WebAppApplyConfiguration {
	s := webappac.WebAppStatus().
		WithObservedGeneration(status.ObservedGeneration).
		WithReplicas(status.Replicas).
		WithAvailableReplicas(status.AvailableReplicas)
	for _, c := range status.Conditions {
		if slices.Contains(ownConditions, c.Type) {
			s.WithConditions(metav1ac.Condition().WithType(c.Type).WithStatus(c.Status).
				WithObservedGeneration(c.ObservedGeneration).WithLastTransitionTime(c.LastTransitionTime).
				WithReason(c.Reason).WithMessage(c.Message))
		}
	}
	return webappac.WebApp(app.Name, app.Namespace).WithStatus(s)
}

// The reasons of the WebApp's conditions.
const (
	reasonAvailable        = "MinimumReplicasAvailable"
	reasonUnavailable      = "MinimumReplicasUnavailable"
	reasonRollingOut       = "RollingOut"
	reasonRolloutComplete  = "RolloutComplete"
	reasonDeadlineExceeded = "ProgressDeadlineExceeded"
	reasonNameConflict     = "NameConflict"
)

// setStatusFromDeployment reports d, the WebApp's Deployment as last
// written or read, in status: Available from the Deployment's own
// Available condition, Progressing from whether its rollout is complete
// (as kubectl rollout status decides it), and the kstatus conditions from
// both: Ready once the rollout is complete and available, Stalled past the
// progress deadline, Reconciling otherwise.
func setStatusFromDeployment(app *v1.WebApp, status *v1.WebAppStatus, d *appsv1.Deployment) {
	status.Replicas, status.AvailableReplicas = d.Status.Replicas, d.Status.AvailableReplicas

	available := metav1.Condition{Type: v1.Available, Status: metav1.ConditionFalse, Reason: reasonUnavailable,
		Message: "the Deployment does not have minimum availability"}
	if c := deploymentCondition(d, appsv1.DeploymentAvailable); c != nil && c.Status == corev1.ConditionTrue {
		available.Status, available.Reason, available.Message = metav1.ConditionTrue, reasonAvailable, c.Message
	}
	controllerutil.SetCondition(app, &status.Conditions, available)

	progressing := metav1.Condition{Type: v1.Progressing, Status: metav1.ConditionTrue, Reason: reasonRollingOut,
		Message: "the Deployment is rolling out"}
	switch c := deploymentCondition(d, appsv1.DeploymentProgressing); {
	case c != nil && c.Reason == reasonDeadlineExceeded:
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionFalse, reasonDeadlineExceeded, c.Message
	case rolloutComplete(d):
		progressing.Status, progressing.Reason, progressing.Message = metav1.ConditionFalse, reasonRolloutComplete, "every replica is updated and available"
	}
	controllerutil.SetCondition(app, &status.Conditions, progressing)

	switch {
	case progressing.Reason == reasonDeadlineExceeded:
		controllerutil.MarkStalled(app, &status.Conditions, reasonDeadlineExceeded, progressing.Message)
	case progressing.Reason == reasonRolloutComplete && available.Status == metav1.ConditionTrue:
		controllerutil.MarkReady(app, &status.Conditions, reasonRolloutComplete, progressing.Message)
	default:
		controllerutil.MarkReconciling(app, &status.Conditions, progressing.Reason, progressing.Message)
	}
}

// setConflict reports that the WebApp's objects cannot be written: it is
// neither progressing nor available until the conflict is resolved, and
// stalled for kstatus, since retries cannot fix it.
func setConflict(app *v1.WebApp, status *v1.WebAppStatus, msg string) {
	for _, t := range []string{v1.Progressing, v1.Available} {
		controllerutil.SetCondition(app, &status.Conditions, metav1.Condition{Type: t,
			Status: metav1.ConditionFalse, Reason: reasonNameConflict, Message: msg})
	}
	controllerutil.MarkStalled(app, &status.Conditions, reasonNameConflict, msg)
}

// rolloutComplete is kubectl rollout status's test: the Deployment
// controller has seen the latest spec, and every replica is updated and
// available, with no old ones left.
func rolloutComplete(d *appsv1.Deployment) bool {
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	return s.ObservedGeneration >= d.Generation && s.UpdatedReplicas == want && s.Replicas == want && s.AvailableReplicas == want
}

func deploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	if d == nil {
		return nil
	}
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
