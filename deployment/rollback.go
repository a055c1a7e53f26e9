package deployment

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
)

// rollback serves the legacy rollback annotation
// (deprecated.deployment.rollback.to, what `kubectl rollout undo` used to
// set through extensions/v1beta1): it copies the template of the requested
// revision into the Deployment and clears the annotation, which the next
// pass then rolls out as usual. Revision 0 means the previous revision.
// Whatever happens, the annotation is cleared, so a bad request is not
// retried forever.
func (r *Reconciler) rollback(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	logger := klog.FromContext(ctx)
	newRS, oldRSs, err := r.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, true)
	if err != nil {
		return err
	}
	allRSs := withNewRS(oldRSs, newRS)

	revision, _ := getRollbackTo(d)
	if revision == 0 {
		if revision = lastRevision(allRSs); revision == 0 {
			r.recordWarning(d, eventRollbackRevisionNotFound, "Unable to find last revision.")
			return r.clearRollbackAndUpdate(ctx, d)
		}
	}

	for _, rs := range allRSs {
		if rs == nil {
			continue
		}
		v, err := Revision(rs)
		if err != nil {
			logger.V(4).Info("Unable to extract revision from deployment's replica set", "replicaSet", klog.KObj(rs), "err", err)
			continue
		}
		if v != revision {
			continue
		}
		logger.V(4).Info("Found replica set with desired revision", "replicaSet", klog.KObj(rs), "revision", v)
		// The revision number itself moves on the next pass, when the
		// ReplicaSet becomes the new one again.
		rolledBack, err := r.rollbackToTemplate(ctx, d, rs)
		if rolledBack && err == nil {
			r.recordRollback(d, revision)
		}
		return err
	}
	r.recordWarning(d, eventRollbackRevisionNotFound, "Unable to find the revision to rollback to.")
	return r.clearRollbackAndUpdate(ctx, d)
}

// rollbackToTemplate gives d rs's template, and the user annotations rs
// carried for that template (otherwise the Deployment's current ones would be
// copied onto rs on the next pass), then clears the rollback request. It
// reports whether the template changed.
func (r *Reconciler) rollbackToTemplate(ctx context.Context, d *appsv1.Deployment, rs *appsv1.ReplicaSet) (bool, error) {
	logger := klog.FromContext(ctx)
	rolledBack := false
	if !equalIgnoreHash(&d.Spec.Template, &rs.Spec.Template) {
		logger.V(4).Info("Rolling back deployment to old template spec", "deployment", klog.KObj(d), "templateSpec", rs.Spec.Template.Spec)
		restoreTemplate(d, &rs.Spec.Template)
		setDeploymentAnnotationsTo(d, rs)
		rolledBack = true
	} else {
		logger.V(4).Info("Rolling back to a revision that contains the same template as current deployment, skipping rollback...", "deployment", klog.KObj(d))
		r.recordWarning(d, eventRollbackTemplateUnchanged,
			fmt.Sprintf("The rollback revision contains the same template as current deployment %q", d.Name))
	}
	return rolledBack, r.clearRollbackAndUpdate(ctx, d)
}

// clearRollbackAndUpdate removes the rollback request and writes d, template
// included, with a spec update.
func (r *Reconciler) clearRollbackAndUpdate(ctx context.Context, d *appsv1.Deployment) error {
	klog.FromContext(ctx).V(4).Info("Cleans up rollbackTo of deployment", "deployment", klog.KObj(d))
	clearRollbackTo(d)
	_, err := r.updateDeployment(ctx, d)
	return err
}

// restoreTemplate gives d a copy of tmpl, an old ReplicaSet's template,
// without its pod-template-hash label.
func restoreTemplate(d *appsv1.Deployment, tmpl *corev1.PodTemplateSpec) {
	d.Spec.Template = *tmpl.DeepCopy()
	if d.Spec.Template.Labels != nil {
		delete(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	}
}
