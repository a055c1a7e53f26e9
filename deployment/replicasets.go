package deployment

import (
	"fmt"
	"slices"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// equalIgnoreHash reports whether two pod templates are semantically equal
// once their pod-template-hash labels are ignored. The Deployment's template
// has no hash label; its ReplicaSets' templates do.
//
// It compares the labels by hand and the rest of the templates in place,
// without copying them: every sync compares the Deployment's template with
// each of its ReplicaSets', and copies of whole pod specs for it were the
// controller's largest allocation (issue 48).
func equalIgnoreHash(a, b *corev1.PodTemplateSpec) bool {
	if !labelsEqualIgnoreHash(a.Labels, b.Labels) {
		return false
	}
	am, bm := a.ObjectMeta, b.ObjectMeta
	am.Labels, bm.Labels = nil, nil
	return equality.Semantic.DeepEqual(&am, &bm) && equality.Semantic.DeepEqual(&a.Spec, &b.Spec)
}

// labelsEqualIgnoreHash reports whether a and b hold the same labels but for
// the pod-template-hash label. Like equality.Semantic, it does not tell an
// empty map from nil.
func labelsEqualIgnoreHash(a, b map[string]string) bool {
	count := func(labels map[string]string) int {
		n := len(labels)
		if _, ok := labels[appsv1.DefaultDeploymentUniqueLabelKey]; ok {
			n--
		}
		return n
	}
	if count(a) != count(b) {
		return false
	}
	for k, v := range a {
		if k == appsv1.DefaultDeploymentUniqueLabelKey {
			continue
		}
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// findNewReplicaSet returns the ReplicaSet running d's current template, or
// nil. Should several match (possible after upgrades changed defaulting), the
// oldest wins: creation time, then name. A ReplicaSet being deleted can be
// chosen. rss is sorted in place by creation time, as upstream does.
func findNewReplicaSet(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sortByCreation(rss)
	for _, rs := range rss {
		if equalIgnoreHash(&rs.Spec.Template, &d.Spec.Template) {
			return rs
		}
	}
	return nil
}

// findOldReplicaSets splits out every ReplicaSet of d that is not the new one:
// withPods keeps those whose spec.replicas is not 0, all keeps them all. rss
// is sorted in place by creation time.
func findOldReplicaSets(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) (withPods, all []*appsv1.ReplicaSet) {
	return oldReplicaSets(rss, findNewReplicaSet(d, rss))
}

// oldReplicaSets is findOldReplicaSets once the new ReplicaSet, newRS (nil
// if none), is known.
func oldReplicaSets(rss []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (withPods, all []*appsv1.ReplicaSet) {
	for _, rs := range rss {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		all = append(all, rs)
		if rsSpecReplicas(rs) != 0 {
			withPods = append(withPods, rs)
		}
	}
	return withPods, all
}

// filterActiveReplicaSets keeps the non-nil ReplicaSets with spec.replicas > 0.
func filterActiveReplicaSets(rss []*appsv1.ReplicaSet) []*appsv1.ReplicaSet {
	var active []*appsv1.ReplicaSet
	for _, rs := range rss {
		if rs != nil && rsSpecReplicas(rs) > 0 {
			active = append(active, rs)
		}
	}
	return active
}

// findActiveOrLatest returns the ReplicaSet that takes all of a scale when at
// most one is active: the active one, or with none active the new one, or
// else the newest old one. It returns nil with several active (those are
// scaled proportionally) or with no ReplicaSets at all. oldRSs is sorted in
// place, newest first.
func findActiveOrLatest(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	if newRS == nil && len(oldRSs) == 0 {
		return nil
	}
	sortNewestFirst(oldRSs)
	active := filterActiveReplicaSets(append(slices.Clip(oldRSs), newRS))
	switch len(active) {
	case 0:
		if newRS != nil {
			return newRS
		}
		return oldRSs[0]
	case 1:
		return active[0]
	default:
		return nil
	}
}

// sumReplicas adds up field over rss, skipping nil entries: upstream passes
// the new ReplicaSet, which may not exist yet, in the same slice as the old.
func sumReplicas(rss []*appsv1.ReplicaSet, field func(*appsv1.ReplicaSet) int32) int32 {
	var n int32
	for _, rs := range rss {
		if rs != nil {
			n += field(rs)
		}
	}
	return n
}

// replicaCount sums spec.replicas over rss (nil entries skipped).
func replicaCount(rss []*appsv1.ReplicaSet) int32 { return sumReplicas(rss, rsSpecReplicas) }

// actualReplicaCount sums status.replicas over rss (nil entries skipped).
func actualReplicaCount(rss []*appsv1.ReplicaSet) int32 {
	return sumReplicas(rss, func(rs *appsv1.ReplicaSet) int32 { return rs.Status.Replicas })
}

// readyReplicaCount sums status.readyReplicas over rss (nil entries skipped).
func readyReplicaCount(rss []*appsv1.ReplicaSet) int32 {
	return sumReplicas(rss, func(rs *appsv1.ReplicaSet) int32 { return rs.Status.ReadyReplicas })
}

// availableReplicaCount sums status.availableReplicas over rss (nil entries skipped).
func availableReplicaCount(rss []*appsv1.ReplicaSet) int32 {
	return sumReplicas(rss, func(rs *appsv1.ReplicaSet) int32 { return rs.Status.AvailableReplicas })
}

// isSaturated reports whether rs holds all of d's pods: its size and its
// desired-replicas annotation equal spec.replicas and all of them are
// available.
func isSaturated(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	if rs == nil {
		return false
	}
	// Atoi, not the stricter annotation parser: upstream accepts "+3" here.
	desired, err := strconv.Atoi(rs.Annotations[DesiredReplicasAnnotation])
	if err != nil {
		return false
	}
	replicas := specReplicas(d)
	// Upstream compares the value cut to an int32, so "4294967300" (2^32+4)
	// counts as 4. The same cut keeps the two controllers deciding alike on
	// such an annotation.
	return rsSpecReplicas(rs) == replicas &&
		int32(desired) == replicas &&
		rs.Status.AvailableReplicas == replicas
}

// newRSNewReplicas is the size the new ReplicaSet should reach in this
// rollout step. RollingUpdate grows it toward spec.replicas as far as
// spec.replicas + maxSurge allows over all ReplicaSets (never shrinking it);
// Recreate sizes it to spec.replicas at once. A nil maxSurge is an error here,
// as upstream (which resolves it without defaulting) reports.
func newRSNewReplicas(d *appsv1.Deployment, allRSs []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) (int32, error) {
	replicas := specReplicas(d)
	switch d.Spec.Strategy.Type {
	case appsv1.RollingUpdateDeploymentStrategyType:
		var surgeValue *intstr.IntOrString
		if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
			surgeValue = ru.MaxSurge
		}
		surge, err := scaledValue(surgeValue, replicas, true)
		if err != nil {
			return 0, err
		}
		current := replicaCount(allRSs)
		limit := replicas + surge
		newSize := rsSpecReplicas(newRS)
		if current >= limit {
			return newSize, nil
		}
		return newSize + min(limit-current, replicas-newSize), nil
	case appsv1.RecreateDeploymentStrategyType:
		return replicas, nil
	default:
		return 0, fmt.Errorf("deployment type %v isn't supported", d.Spec.Strategy.Type)
	}
}

// oldPodsRunning reports whether a Recreate rollout must still wait for old
// pods: an old ReplicaSet reports pods, or a pod of a ReplicaSet other than
// newRS is in any phase but Failed or Succeeded (Unknown counts as running).
func oldPodsRunning(newRS *appsv1.ReplicaSet, oldRSs []*appsv1.ReplicaSet, podMap map[types.UID][]*corev1.Pod) bool {
	if actualReplicaCount(oldRSs) > 0 {
		return true
	}
	for rsUID, pods := range podMap {
		if newRS != nil && newRS.UID == rsUID {
			continue
		}
		for _, pod := range pods {
			switch pod.Status.Phase {
			case corev1.PodFailed, corev1.PodSucceeded:
			default:
				return true
			}
		}
	}
	return false
}
