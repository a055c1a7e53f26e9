package deployment

import (
	"context"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/klog/v2"
)

// The kind written into the controller references of the ReplicaSets a
// Deployment owns.
const (
	deploymentAPIVersion = "apps/v1"
	deploymentKind       = "Deployment"
)

// claimReplicaSets returns the ReplicaSets d controls, settling ownership on
// the way: it adopts orphans its selector matches and releases the ones it
// owns that the selector no longer matches.
//
// The owned ReplicaSets are looked at, not just the matching ones, because
// the owned ones that stopped matching must be released (claimCandidates).
// Any failed adoption or release fails the whole pass, after trying every
// ReplicaSet.
func (r *Reconciler) claimReplicaSets(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	all, err := r.claimCandidates(d)
	if err != nil {
		return nil, err
	}
	selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return nil, fmt.Errorf("deployment %s/%s has invalid label selector: %v", d.Namespace, d.Name, err)
	}
	c := &claimer{r: r, d: d, selector: selector}
	var claimed []*appsv1.ReplicaSet
	var errs []error
	for _, rs := range all {
		ok, err := c.claim(ctx, rs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			claimed = append(claimed, rs)
		}
	}
	return claimed, utilerrors.NewAggregate(errs)
}

// claimer settles the ownership of ReplicaSets for one Deployment during one
// pass. It re-reads the Deployment live at most once, before its first
// adoption.
type claimer struct {
	r        *Reconciler
	d        *appsv1.Deployment
	selector labels.Selector

	checked  bool
	adoptErr error
}

// claim reports whether the Deployment controls rs once ownership is settled.
//
// The selector is matched only for ReplicaSets this Deployment owns or
// could adopt: a namespace's ReplicaSets mostly belong to other
// Deployments, and every sync looks at all of them.
func (c *claimer) claim(ctx context.Context, rs *appsv1.ReplicaSet) (bool, error) {
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		if ref.UID != c.d.UID {
			return false, nil // another controller's
		}
		if c.selector.Matches(labels.Set(rs.Labels)) {
			// Ours and still selected; a Deployment being deleted keeps it too,
			// since keeping it takes no write.
			return true, nil
		}
		if c.d.DeletionTimestamp != nil {
			return false, nil
		}
		if err := c.release(ctx, rs); err != nil {
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			return false, err
		}
		return false, nil
	}

	// An orphan.
	if c.d.DeletionTimestamp != nil || rs.DeletionTimestamp != nil || !c.selector.Matches(labels.Set(rs.Labels)) {
		return false, nil
	}
	if c.d.Namespace != "" && c.d.Namespace != rs.Namespace {
		return false, nil
	}
	if err := c.adopt(ctx, rs); err != nil {
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// canAdopt re-reads the Deployment from the API server, bypassing the cache,
// so that a Deployment deleted (or deleted and re-created) since the cache
// was filled never adopts anything. The answer holds for the whole pass.
func (c *claimer) canAdopt(ctx context.Context) error {
	if c.checked {
		return c.adoptErr
	}
	c.checked = true
	fresh, err := c.r.client.AppsV1().Deployments(c.d.Namespace).Get(ctx, c.d.Name, metav1.GetOptions{})
	switch {
	case err != nil:
		c.adoptErr = fmt.Errorf("can't recheck DeletionTimestamp: %v", err)
	case fresh.UID != c.d.UID:
		c.adoptErr = fmt.Errorf("can't recheck DeletionTimestamp: original Deployment %v/%v is gone: got uid %v, wanted %v",
			c.d.Namespace, c.d.Name, fresh.UID, c.d.UID)
	case fresh.DeletionTimestamp != nil:
		c.adoptErr = fmt.Errorf("%v/%v has just been deleted at %v", fresh.Namespace, fresh.Name, fresh.DeletionTimestamp)
	}
	return c.adoptErr
}

// adopt makes the Deployment rs's controller. The patch carries rs's UID, so
// it fails rather than adopt a different ReplicaSet of the same name, and the
// API server rejects it if another controller got there first.
func (c *claimer) adopt(ctx context.Context, rs *appsv1.ReplicaSet) error {
	if err := c.canAdopt(ctx); err != nil {
		return fmt.Errorf("can't adopt ReplicaSet %v/%v (%v): %v", rs.Namespace, rs.Name, rs.UID, err)
	}
	patch, err := json.Marshal(adoptPatch{Metadata: adoptPatchMeta{
		UID:             rs.UID,
		OwnerReferences: []metav1.OwnerReference{*controllerRefTo(c.d)},
	}})
	if err != nil {
		return err
	}
	_, err = c.r.patchReplicaSet(ctx, rs, patch)
	return err
}

// release removes the Deployment's owner reference from rs. A ReplicaSet
// that is gone (NotFound) or was re-created or released meanwhile (Invalid:
// the UID guard or the missing reference) needs nothing more.
func (c *claimer) release(ctx context.Context, rs *appsv1.ReplicaSet) error {
	klog.FromContext(ctx).V(2).Info("Patching ReplicaSet to remove its controllerRef",
		"replicaSet", klog.KObj(rs), "kind", deploymentKind, "controller", c.d.Name)
	patch, err := json.Marshal(releasePatch{Metadata: releasePatchMeta{
		UID:             rs.UID,
		OwnerReferences: []map[string]string{{"$patch": "delete", "uid": string(c.d.UID)}},
	}})
	if err != nil {
		return err
	}
	_, err = c.r.patchReplicaSet(ctx, rs, patch)
	if apierrors.IsNotFound(err) || apierrors.IsInvalid(err) {
		return nil
	}
	return err
}

// controllerRefTo is the owner reference a Deployment puts on the
// ReplicaSets it controls: controller, and blocking the owner's foreground
// deletion until the ReplicaSet is gone.
func controllerRefTo(d *appsv1.Deployment) *metav1.OwnerReference {
	yes := true
	return &metav1.OwnerReference{
		APIVersion:         deploymentAPIVersion,
		Kind:               deploymentKind,
		Name:               d.Name,
		UID:                d.UID,
		Controller:         &yes,
		BlockOwnerDeletion: &yes,
	}
}

// adoptPatch is the strategic merge patch that adds a controller reference.
type adoptPatch struct {
	Metadata adoptPatchMeta `json:"metadata"`
}

type adoptPatchMeta struct {
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
	UID             types.UID               `json:"uid"`
}

// releasePatch is the strategic merge patch that deletes an owner reference
// by UID.
type releasePatch struct {
	Metadata releasePatchMeta `json:"metadata"`
}

type releasePatchMeta struct {
	UID             types.UID           `json:"uid"`
	OwnerReferences []map[string]string `json:"ownerReferences"`
}
