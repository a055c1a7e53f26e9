package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"
)

// ReasonNewReplicaSetUnadoptable (ReplicaFailure=True): the Deployment's
// selector would not select the new ReplicaSet the controller would create,
// so none is created. Upstream has no such condition; see the package doc.
const ReasonNewReplicaSetUnadoptable = "NewReplicaSetUnadoptable"

// newReplicaSetUnadoptable reports whether d's selector fails to select the
// labels its new ReplicaSet would carry: the template's labels plus
// pod-template-hash set to the template's hash. API validation makes the
// selector match the template's labels, so this can only happen when the
// selector itself names pod-template-hash. Upstream creates such a
// ReplicaSet, releases it at once (it no longer matches), takes the next
// create's AlreadyExists for a hash collision, bumps collisionCount and
// creates another: hundreds of ReplicaSets a minute. With matchExpressions on
// pod-template-hash, the ReplicaSet's own selector does not match its
// template and the create fails validation on every retry instead.
//
// The error is for a selector that cannot be parsed: the API server never
// serves one.
func newReplicaSetUnadoptable(d *appsv1.Deployment) (unadoptable bool, hash string, err error) {
	if d.Spec.Selector == nil || !namesHashKey(d.Spec.Selector) {
		return false, "", nil // the common case, without hashing the template
	}
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return false, "", err
	}
	hash = PodTemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	rsLabels := withLabel(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey, hash)
	return !sel.Matches(labels.Set(rsLabels)), hash, nil
}

// unadoptableMessage is the condition's and the event's message. It names no
// hash, so that a spec change (a new hash) leaves the condition as it is.
var unadoptableMessage = fmt.Sprintf("The selector does not select the labels the new replica set would carry "+
	"(the template's labels plus %[1]s), so the deployment would release every replica set it creates: none is created. "+
	"A selector must not name %[1]s; the selector cannot be changed, so delete the deployment and create it again with another selector",
	appsv1.DefaultDeploymentUniqueLabelKey)

// reportUnadoptable sets ReplicaFailure=True with ReasonNewReplicaSetUnadoptable
// and, only when that condition is new, emits one Warning event. The key
// then waits: a spec change enqueues it again, and deleting and re-creating
// the Deployment with a selector without pod-template-hash (the selector is
// immutable) is what fixes it.
func (r *Reconciler) reportUnadoptable(ctx context.Context, d *appsv1.Deployment, hash string) error {
	cur := GetCondition(d.Status, appsv1.DeploymentReplicaFailure)
	isNew := cur == nil || cur.Status != corev1.ConditionTrue || cur.Reason != ReasonNewReplicaSetUnadoptable
	if !isNew && d.Status.ObservedGeneration >= d.Generation {
		return nil
	}
	klog.FromContext(ctx).V(2).Info("Not creating a replica set the deployment's selector would release",
		"deployment", klog.KObj(d), "podTemplateHash", hash)
	setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentReplicaFailure, corev1.ConditionTrue,
		ReasonNewReplicaSetUnadoptable, unadoptableMessage, r.clock.Now()))
	d.Status.ObservedGeneration = d.Generation
	if _, err := r.updateDeploymentStatus(ctx, d); err != nil {
		return err
	}
	if isNew {
		r.recordWarning(d, ReasonNewReplicaSetUnadoptable, unadoptableMessage)
	}
	return nil
}

// namesHashKey reports whether sel has a requirement on pod-template-hash.
func namesHashKey(sel *metav1.LabelSelector) bool {
	if _, ok := sel.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey]; ok {
		return true
	}
	for _, req := range sel.MatchExpressions {
		if req.Key == appsv1.DefaultDeploymentUniqueLabelKey {
			return true
		}
	}
	return false
}
