package deployment

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
)

// progressRecheckSlack is added to the time left before a progress deadline
// when that time is under a second. Upstream requeues such a key at once,
// rate limited, and keeps doing so until the deadline has passed; waiting
// for the deadline itself takes the same decision without the busy loop.
const progressRecheckSlack = 10 * time.Millisecond

// syncStatusOnly is the pass of a Deployment being deleted: it finds the
// ReplicaSets without creating or scaling any and records the status. The
// new ReplicaSet's annotations and the Deployment's revision may still be
// brought up to date, as upstream does.
func (r *Reconciler) syncStatusOnly(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) error {
	newRS, oldRSs, err := r.getAllReplicaSetsAndSyncRevision(ctx, d, rsList, false)
	if err != nil {
		return err
	}
	return r.syncDeploymentStatus(ctx, withNewRS(oldRSs, newRS), newRS, d)
}

// checkPausedConditions records a pause or a resume in the Progressing
// condition and writes it at once, before the rest of the pass.
func (r *Reconciler) checkPausedConditions(ctx context.Context, d *appsv1.Deployment) error {
	if !setPausedCondition(d, r.clock.Now()) {
		return nil
	}
	_, err := r.updateDeploymentStatus(ctx, d)
	return err
}

// syncDeploymentStatus writes the status of a pass that is not a rollout
// step (paused, scaling, being deleted): counts and the Available condition,
// when they changed.
func (r *Reconciler) syncDeploymentStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) error {
	status := availabilityOnlyStatus(allRSs, newRS, d, r.clock.Now(), r.trackTerminating)
	if !statusChanged(d, &status) {
		return nil
	}
	d.Status = status
	_, err := r.updateDeploymentStatus(ctx, d)
	return err
}

// syncRolloutStatus writes the status of a rollout step, Progressing and
// ReplicaFailure conditions included, when it changed. When nothing changed
// and the rollout is stalled, it asks to be called again when the progress
// deadline passes, so that ProgressDeadlineExceeded is reported on time.
func (r *Reconciler) syncRolloutStatus(ctx context.Context, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet, d *appsv1.Deployment) (controller.Result, error) {
	now := r.clock.Now()
	status := rolloutStatus(d, allRSs, newRS, now, r.trackTerminating)
	if statusChanged(d, &status) {
		d.Status = status
		_, err := r.updateDeploymentStatus(ctx, d)
		return controller.Result{}, err
	}

	after, soon, requeue := requeueForProgress(d, d.Status, status, now)
	if !requeue {
		return controller.Result{}, nil
	}
	logger := klog.FromContext(ctx)
	if soon {
		cond := GetCondition(d.Status, appsv1.DeploymentProgressing)
		after = max(cond.LastUpdateTime.Add(progressDeadline(d)).Sub(now), 0) + progressRecheckSlack
		logger.V(4).Info("Queueing up deployment for a progress check now", "deployment", klog.KObj(d), "queueAfter", after)
	} else {
		logger.V(4).Info("Queueing up deployment for a progress check", "deployment", klog.KObj(d), "queueAfter", after)
	}
	return controller.Result{RequeueAfter: after}, nil
}
