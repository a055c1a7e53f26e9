package deployment

import (
	"context"
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/klog/v2"
)

// getAllReplicaSetsAndSyncRevision splits rsList (the claimed ReplicaSets)
// into the new ReplicaSet, the one whose template is the Deployment's, and
// all the others. On the way it brings the new ReplicaSet's annotations and
// the Deployment's revision up to date, and, when create is true, creates the
// new ReplicaSet if there is none. newRS is nil when there is none and create
// is false.
func (r *Reconciler) getAllReplicaSetsAndSyncRevision(ctx context.Context, d *appsv1.Deployment, rsList []*appsv1.ReplicaSet, create bool) (newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, err error) {
	existing := findNewReplicaSet(d, rsList) // once: comparing templates is most of a sync's work
	_, oldRSs = oldReplicaSets(rsList, existing)
	newRS, err = r.getNewReplicaSet(ctx, d, existing, oldRSs, create)
	if err != nil {
		return nil, nil, err
	}
	return newRS, oldRSs, nil
}

// getNewReplicaSet returns the Deployment's new ReplicaSet, or nil if there
// is none and create is false. existing is the one findNewReplicaSet found,
// or nil.
//
// An existing one gets the Deployment's annotations, the next revision (a
// revision is only ever raised) and minReadySeconds; if any of those changed
// it is updated and the update's result returned. Otherwise the Deployment
// takes the ReplicaSet's revision.
func (r *Reconciler) getNewReplicaSet(ctx context.Context, d *appsv1.Deployment, existing *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, create bool) (*appsv1.ReplicaSet, error) {
	newRevision := strconv.FormatInt(maxRevision(oldRSs)+1, 10)

	if existing != nil {
		return r.syncExistingNewReplicaSet(ctx, d, existing, newRevision)
	}
	if !create {
		return nil, nil
	}
	return r.createNewReplicaSet(ctx, d, oldRSs, newRevision)
}

// syncExistingNewReplicaSet is getNewReplicaSet's path for a new ReplicaSet
// that already exists.
func (r *Reconciler) syncExistingNewReplicaSet(ctx context.Context, d *appsv1.Deployment, existing *appsv1.ReplicaSet, newRevision string) (*appsv1.ReplicaSet, error) {
	rs := existing.DeepCopy()
	annotationsChanged := setNewReplicaSetAnnotations(d, rs, newRevision, true, revisionHistoryLimitInChars)
	if annotationsChanged || rs.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
		rs.Spec.MinReadySeconds = d.Spec.MinReadySeconds
		return r.updateReplicaSet(ctx, rs)
	}

	// The ReplicaSet's own revision is the truth: it was set when it became new.
	changed := setDeploymentRevision(d, rs.Annotations[RevisionAnnotation])
	// A Deployment that never had a Progressing condition (say, one that just
	// got a deadline) starts counting from now.
	if hasProgressDeadline(d) && GetCondition(d.Status, appsv1.DeploymentProgressing) == nil {
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			ReasonFoundNewReplicaSet, fmt.Sprintf("Found new replica set %q", rs.Name), r.clock.Now()))
		changed = true
	}
	if changed {
		// The status endpoint also takes the revision annotation without
		// bumping metadata.generation, which a spec update would do.
		if _, err := r.updateDeploymentStatus(ctx, d); err != nil {
			return nil, err
		}
	}
	return rs, nil
}

// createNewReplicaSet creates the Deployment's new ReplicaSet, named after
// the hash of its template so that creating it twice is harmless.
func (r *Reconciler) createNewReplicaSet(ctx context.Context, d *appsv1.Deployment, oldRSs []*appsv1.ReplicaSet, newRevision string) (*appsv1.ReplicaSet, error) {
	logger := klog.FromContext(ctx)
	if d.Spec.Selector == nil {
		// The API server never serves one; upstream would crash here.
		return nil, fmt.Errorf("deployment %s/%s has no selector", d.Namespace, d.Name)
	}
	template := *d.Spec.Template.DeepCopy()
	hash := PodTemplateHash(&template, d.Status.CollisionCount)
	template.Labels = withLabel(d.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey, hash)

	newRS := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            generateReplicaSetName(d.Name, hash),
			Namespace:       d.Namespace,
			OwnerReferences: []metav1.OwnerReference{*controllerRefTo(d)},
			Labels:          template.Labels,
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        new(int32),
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        selectorWithLabel(d.Spec.Selector, appsv1.DefaultDeploymentUniqueLabelKey, hash),
			Template:        template,
		},
	}
	replicas, err := newRSNewReplicas(d, withNewRS(oldRSs, newRS), newRS)
	if err != nil {
		return nil, err
	}
	*newRS.Spec.Replicas = replicas
	setNewReplicaSetAnnotations(d, newRS, newRevision, false, revisionHistoryLimitInChars)

	created, err := r.createReplicaSet(ctx, newRS)
	alreadyExists := false
	switch {
	case apierrors.IsAlreadyExists(err):
		// A slow cache or a quick resync, or a hash collision: tell them apart
		// by owner and template.
		alreadyExists = true
		found, getErr := r.replicaSets.ReplicaSets(newRS.Namespace).Get(newRS.Name)
		if getErr != nil {
			return nil, getErr
		}
		if ref := metav1.GetControllerOfNoCopy(found); ref != nil && ref.UID == d.UID && equalIgnoreHash(&d.Spec.Template, &found.Spec.Template) {
			created, err = found, nil
			break
		}
		// A collision: the next pass hashes with a bumped collisionCount and
		// so picks another name. The AlreadyExists error makes it come soon.
		if d.Status.CollisionCount == nil {
			d.Status.CollisionCount = new(int32)
		}
		before := *d.Status.CollisionCount
		*d.Status.CollisionCount++
		if _, updErr := r.updateDeploymentStatus(ctx, d); updErr == nil {
			logger.V(2).Info("Found a hash collision for deployment - bumping collisionCount to resolve it",
				"deployment", klog.KObj(d), "oldCollisionCount", before, "newCollisionCount", *d.Status.CollisionCount)
		}
		return nil, err
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		// Every create in the namespace fails from now on; nothing to report.
		return nil, err
	case err != nil:
		msg := fmt.Sprintf("Failed to create new replica set %q: %v", newRS.Name, err)
		if hasProgressDeadline(d) {
			setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionFalse,
				ReasonReplicaSetCreateError, msg, r.clock.Now()))
			// The create error is the one worth returning.
			_, _ = r.updateDeploymentStatus(ctx, d)
		}
		r.recordWarning(d, eventReplicaSetCreateError, msg)
		return nil, err
	}

	if !alreadyExists && replicas > 0 {
		r.recordCreatedScaled(d, created.Name, replicas)
	}
	changed := setDeploymentRevision(d, newRevision)
	if !alreadyExists && hasProgressDeadline(d) {
		setDeploymentCondition(&d.Status, newDeploymentCondition(appsv1.DeploymentProgressing, corev1.ConditionTrue,
			ReasonNewReplicaSetCreated, fmt.Sprintf("Created new replica set %q", created.Name), r.clock.Now()))
		changed = true
	}
	if changed {
		_, err = r.updateDeploymentStatus(ctx, d)
	}
	return created, err
}

// generateReplicaSetName is "<deployment>-<hash>", the Deployment name cut so
// that the result fits a DNS subdomain (253 characters). The hash is never cut.
func generateReplicaSetName(deploymentName, hash string) string {
	const separator = "-"
	limit := validation.DNS1123SubdomainMaxLength - len(separator) - len(hash)
	if len(deploymentName) > limit && limit > 0 {
		deploymentName = deploymentName[:limit]
	}
	return deploymentName + separator + hash
}

// withLabel returns a copy of labels with key set to value.
func withLabel(labels map[string]string, key, value string) map[string]string {
	out := make(map[string]string, len(labels)+1)
	for k, v := range labels {
		out[k] = v
	}
	out[key] = value
	return out
}

// selectorWithLabel returns a copy of sel that also requires key=value.
func selectorWithLabel(sel *metav1.LabelSelector, key, value string) *metav1.LabelSelector {
	out := sel.DeepCopy()
	out.MatchLabels = withLabel(sel.MatchLabels, key, value)
	return out
}

// withNewRS returns oldRSs followed by newRS in a fresh slice, so that
// appending never writes into the spare capacity of the caller's slice.
// newRS may be nil: every consumer skips nil entries.
func withNewRS(oldRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	all := make([]*appsv1.ReplicaSet, 0, len(oldRSs)+1)
	all = append(all, oldRSs...)
	return append(all, newRS)
}
