package upstreamcheck

// This file draws random worlds for TestRandomWorldsMatchUpstream: a
// Deployment and what surrounds it, every object one the API server could
// hold (validation passed, defaults filled in), but with the odd values that
// stored objects carry after years of upgrades, hand edits and other
// controllers: unparsable revisions, annotations out of range, orphans,
// foreign owners, duplicate templates, stale statuses.

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	ours "github.com/ctrlkit/ctrlkit/deployment"
)

// worldEpoch is when the random worlds' objects were created.
var worldEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// images are the container images templates are drawn from: few, so that
// ReplicaSets often share a template with the Deployment or with each other.
var images = []string{"v1", "v2", "v3", "v4", "v5"}

// oddNumbers are annotation values that do not read as a plain number in
// [0, MaxInt32] but may sit in stored objects.
var oddNumbers = []string{"abc", "", " 3", "+3", "3.0", "-1", "2147483648", "99999999999999999999", "0x10"}

// worldGen draws worlds from one seed. now is the wall clock the worlds'
// condition times are relative to: progress deadlines are judged against
// the real clock upstream reads.
type worldGen struct {
	r   *rand.Rand
	now time.Time
}

func newWorldGen(seed uint64) *worldGen {
	return &worldGen{r: rand.New(rand.NewPCG(seed, 0x5eed)), now: time.Now()}
}

func (g *worldGen) chance(p float64) bool { return g.r.Float64() < p }

func pick[T any](g *worldGen, values ...T) T { return values[g.r.IntN(len(values))] }

// world draws a Deployment, its ReplicaSets and their pods, and what the
// API server holds when it differs from the caches.
func (g *worldGen) world() syncWorld {
	d := g.deployment()
	rss := g.replicaSets(d)
	g.revisionAnnotations(d, rss)
	cached := []runtime.Object{d}
	for _, rs := range rss {
		cached = append(cached, rs)
	}
	for i, rs := range rss {
		for _, p := range g.pods(rs, i) {
			cached = append(cached, p)
		}
	}
	w := syncWorld{cached: cached}
	if g.chance(0.15) {
		w.served = g.servedDiffers(d, cached)
	}
	if g.chance(0.1) {
		w.refusals = []refusal{g.refusal()}
	}
	return w
}

// refusal draws a request the API server refuses, and how: quota, a
// terminating namespace, a conflict, an overloaded server.
func (g *worldGen) refusal() refusal {
	rs := schema.GroupResource{Group: "apps", Resource: "replicasets"}
	terminating := apierrors.NewForbidden(rs, "", errors.New("namespace is being terminated"))
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause}}
	return pick(g,
		refusal{"create", "replicasets", apierrors.NewForbidden(rs, "", errors.New("exceeded quota"))},
		refusal{"create", "replicasets", terminating},
		refusal{"update", "replicasets", apierrors.NewConflict(rs, "", errors.New("stale"))},
		refusal{"patch", "replicasets", apierrors.NewConflict(rs, "", errors.New("stale"))},
		refusal{"delete", "replicasets", apierrors.NewServiceUnavailable("busy")},
		refusal{"update", "deployments/status", apierrors.NewConflict(schema.GroupResource{Group: "apps", Resource: "deployments"}, "foo", errors.New("stale"))},
		refusal{"update", "deployments", apierrors.NewServiceUnavailable("busy")},
		refusal{"get", "deployments", apierrors.NewServiceUnavailable("busy")},
	)
}

// deployment draws a Deployment named foo (now and then a name so long that
// ReplicaSet names are cut) over every strategy and parameter.
func (g *worldGen) deployment() *appsv1.Deployment {
	name := "foo"
	if g.chance(0.04) {
		name = strings.Repeat("long-", 48) + "foo"
	}
	labels := map[string]string{"app": "foo"}
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}
	if g.chance(0.3) {
		labels["tier"] = pick(g, "web", "db")
		selector.MatchExpressions = append(selector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{labels["tier"], "cache"}})
	}
	if g.chance(0.2) {
		selector.MatchExpressions = append(selector.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: "track", Operator: metav1.LabelSelectorOpDoesNotExist})
	}
	if g.chance(0.03) {
		// Copied from a ReplicaSet by hand: the hash label is ignored when
		// templates are compared, and replaced when one is created.
		labels[appsv1.DefaultDeploymentUniqueLabelKey] = "5d8f9c7b6"
	}
	minReady := pick[int32](g, 0, 0, 0, 1, 5)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: "uid-foo", Generation: g.r.Int64N(4) + 1,
			ResourceVersion: "10", CreationTimestamp: metav1.NewTime(worldEpoch)},
		Spec: appsv1.DeploymentSpec{
			Replicas:                ptr.To(g.replicas()),
			Selector:                selector,
			Template:                g.template(labels, pick(g, images...)),
			MinReadySeconds:         minReady,
			RevisionHistoryLimit:    ptr.To(pick[int32](g, 0, 1, 2, 3, 5, 10, math.MaxInt32)),
			ProgressDeadlineSeconds: ptr.To(pick[int32](g, 30, 120, 600, math.MaxInt32)),
			Paused:                  g.chance(0.2),
			Strategy:                g.strategy(),
		},
	}
	if g.chance(0.04) {
		d.DeletionTimestamp = ptr.To(metav1.NewTime(worldEpoch.Add(time.Hour)))
		d.Finalizers = []string{metav1.FinalizerDeleteDependents}
	}
	d.Annotations = map[string]string{}
	if g.chance(0.4) {
		d.Annotations["team"] = pick(g, "blue", "green")
	}
	if g.chance(0.1) {
		d.Annotations[corev1.LastAppliedConfigAnnotation] = "{}"
	}
	if g.chance(0.1) {
		d.Annotations["deployment.kubernetes.io/other"] = "x"
	}
	d.Status = g.deploymentStatus(d)
	return d
}

// replicas draws a Deployment size: mostly small, now and then 0 or huge.
func (g *worldGen) replicas() int32 {
	switch {
	case g.chance(0.1):
		return 0
	case g.chance(0.04):
		return pick[int32](g, 100, 1<<20, math.MaxInt32)
	default:
		return g.r.Int32N(10) + 1
	}
}

// template is a pod template with the given labels and image.
func (g *worldGen) template(labels map[string]string, image string) corev1.PodTemplateSpec {
	tmpl := corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image,
			TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}},
			RestartPolicy: corev1.RestartPolicyAlways, DNSPolicy: corev1.DNSClusterFirst},
	}
	for k, v := range labels {
		tmpl.Labels[k] = v
	}
	return tmpl
}

// strategy draws RollingUpdate (with valid fenceposts: not both zero,
// maxUnavailable at most 100%) or Recreate.
func (g *worldGen) strategy() appsv1.DeploymentStrategy {
	if g.chance(0.3) {
		return appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	}
	for {
		surge := g.fencepost("150%", "300%")
		unavailable := g.fencepost()
		if isZero(surge) && isZero(unavailable) {
			continue
		}
		return appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &surge, MaxUnavailable: &unavailable}}
	}
}

func (g *worldGen) fencepost(morePercents ...string) intstr.IntOrString {
	if g.chance(0.5) {
		return intstr.FromInt32(g.r.Int32N(4))
	}
	return intstr.FromString(pick(g, append([]string{"0%", "1%", "10%", "25%", "50%", "99%", "100%"}, morePercents...)...))
}

func isZero(v intstr.IntOrString) bool {
	return v.IntValue() == 0 && (v.Type == intstr.Int || v.StrVal == "0%")
}

// deploymentStatus draws a status as an earlier pass (of either controller)
// may have left it, for an older generation or the current one.
func (g *worldGen) deploymentStatus(d *appsv1.Deployment) appsv1.DeploymentStatus {
	n := g.r.Int32N(8)
	ready := g.r.Int32N(n + 1)
	st := appsv1.DeploymentStatus{
		ObservedGeneration: g.r.Int64N(d.Generation + 1),
		Replicas:           n,
		UpdatedReplicas:    g.r.Int32N(n + 1),
		ReadyReplicas:      ready,
		AvailableReplicas:  g.r.Int32N(ready + 1),
	}
	st.UnavailableReplicas = max(0, n-st.AvailableReplicas)
	if g.chance(0.7) {
		st.TerminatingReplicas = ptr.To(g.r.Int32N(2))
	}
	if g.chance(0.2) {
		st.CollisionCount = ptr.To(g.r.Int32N(3))
	}
	if g.chance(0.6) {
		at := metav1.NewTime(g.now.Add(-time.Duration(g.r.IntN(7200)+5) * time.Second))
		if g.chance(0.5) {
			st.Conditions = append(st.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue,
				Reason: "MinimumReplicasAvailable", Message: "Deployment has minimum availability.", LastUpdateTime: at, LastTransitionTime: at})
		} else {
			st.Conditions = append(st.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionFalse,
				Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability.", LastUpdateTime: at, LastTransitionTime: at})
		}
	}
	if g.chance(0.7) {
		st.Conditions = append(st.Conditions, g.progressingCondition(d))
	}
	if g.chance(0.05) {
		at := metav1.NewTime(worldEpoch.Add(time.Hour))
		st.Conditions = append(st.Conditions, appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: "quota", LastUpdateTime: at, LastTransitionTime: at})
	}
	g.r.Shuffle(len(st.Conditions), func(i, j int) { st.Conditions[i], st.Conditions[j] = st.Conditions[j], st.Conditions[i] })
	return st
}

// progressingCondition draws a Progressing condition with any of the
// reasons either controller writes, last updated at a time that is clearly
// before, or clearly after, the progress deadline (never within half a
// second of it: the two controllers read the clock at different moments).
func (g *worldGen) progressingCondition(d *appsv1.Deployment) appsv1.DeploymentCondition {
	type kind struct {
		status corev1.ConditionStatus
		reason string
	}
	k := pick(g,
		kind{corev1.ConditionTrue, "NewReplicaSetAvailable"}, kind{corev1.ConditionTrue, "ReplicaSetUpdated"},
		kind{corev1.ConditionTrue, "NewReplicaSetCreated"}, kind{corev1.ConditionTrue, "FoundNewReplicaSet"},
		kind{corev1.ConditionFalse, "ProgressDeadlineExceeded"}, kind{corev1.ConditionFalse, "ReplicaSetCreateError"},
		kind{corev1.ConditionUnknown, "DeploymentPaused"}, kind{corev1.ConditionUnknown, "DeploymentResumed"})
	deadline := time.Duration(*d.Spec.ProgressDeadlineSeconds) * time.Second
	if *d.Spec.ProgressDeadlineSeconds == math.MaxInt32 {
		deadline = time.Hour
	}
	age := pick(g, 5*time.Second, deadline/2, deadline-3*time.Second, deadline+5*time.Second, 3*time.Hour)
	if g.chance(0.05) {
		age = deadline - 500*time.Millisecond // the rate-limited retry: under a second left
	}
	updated := metav1.NewTime(g.now.Add(-age))
	transitioned := updated
	if g.chance(0.5) {
		transitioned = metav1.NewTime(worldEpoch.Add(time.Hour))
	}
	return appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: k.status, Reason: k.reason,
		Message: "set earlier", LastUpdateTime: updated, LastTransitionTime: transitioned}
}

// replicaSets draws the ReplicaSets of d's namespace: owned by d, orphaned
// or another Deployment's; with d's template (the new one, possibly twice)
// or an older one; labels that match d's selector or no longer do; sizes,
// statuses and replica annotations fresh, stale or odd. Revisions are drawn
// afterwards.
func (g *worldGen) replicaSets(d *appsv1.Deployment) []*appsv1.ReplicaSet {
	n := g.r.IntN(6)
	if g.chance(0.15) {
		n = 12 + g.r.IntN(7) // beyond sort.Sort's insertion sort
	}
	names := map[string]bool{}
	var rss []*appsv1.ReplicaSet
	for i := range n {
		image := pick(g, images...)
		if i == 0 && g.chance(0.5) || g.chance(0.15) {
			image = d.Spec.Template.Spec.Containers[0].Image
		}
		tmpl := g.template(d.Spec.Template.Labels, image)
		if g.chance(0.05) {
			tmpl.Annotations = map[string]string{"note": "hand-edited"}
		}
		// The name upstream would give it, with a collision count if the
		// plain name is taken by another set.
		var hash, name string
		var cc *int32
		for {
			hash = ours.PodTemplateHash(&tmpl, cc)
			name = rsName(d.Name, hash)
			if !names[name] {
				break
			}
			cc = ptr.To(ptr.Deref(cc, -1) + 1)
		}
		names[name] = true
		rs := g.replicaSet(d, tmpl, hash, name)
		rss = append(rss, rs)
	}
	if g.chance(0.05) {
		rss = append(rss, g.collider(d, names))
	}
	return rss
}

// rsName is the ReplicaSet name upstream derives from a Deployment's name
// and a template hash.
func rsName(deployment, hash string) string {
	if limit := validation.DNS1123SubdomainMaxLength - 1 - len(hash); len(deployment) > limit {
		deployment = deployment[:limit]
	}
	return deployment + "-" + hash
}

func (g *worldGen) replicaSet(d *appsv1.Deployment, tmpl corev1.PodTemplateSpec, hash, name string) *appsv1.ReplicaSet {
	tmpl.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	labels := map[string]string{}
	for k, v := range tmpl.Labels {
		sel.MatchLabels[k] = v
		labels[k] = v
	}
	if g.chance(0.08) {
		labels["app"] = "other" // relabelled by hand: d no longer selects it
	}
	size := g.r.Int32N(6)
	if g.chance(0.2) {
		size = min(*d.Spec.Replicas, 50)
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Generation: g.r.Int64N(3) + 1,
			ResourceVersion: "5", Labels: labels, Annotations: map[string]string{},
			CreationTimestamp: metav1.NewTime(worldEpoch.Add(time.Duration(g.r.IntN(20)) * time.Minute))},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(size), Selector: sel, Template: tmpl, MinReadySeconds: d.Spec.MinReadySeconds},
	}
	if g.chance(0.1) {
		rs.Spec.MinReadySeconds = pick[int32](g, 0, 3)
	}
	switch {
	case g.chance(0.12): // an orphan
		switch {
		case g.chance(0.3):
			// Created by hand from the Deployment's template: no hash label.
			delete(rs.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
			delete(rs.Spec.Selector.MatchLabels, appsv1.DefaultDeploymentUniqueLabelKey)
			delete(rs.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		case g.chance(0.2):
			// Owned, but not controlled: adoption makes d its controller.
			ref := metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))
			ref.Controller = ptr.To(false)
			rs.OwnerReferences = []metav1.OwnerReference{*ref}
		}
	case g.chance(0.1):
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "bar", UID: "uid-bar",
			Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}
	default:
		rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
	}
	surge := int32(0)
	if ru := d.Spec.Strategy.RollingUpdate; ru != nil {
		surge, _, _ = ours.ResolveFenceposts(ru.MaxSurge, ru.MaxUnavailable, *d.Spec.Replicas)
	}
	g.replicasAnnotation(rs, ours.DesiredReplicasAnnotation, *d.Spec.Replicas)
	g.replicasAnnotation(rs, ours.MaxReplicasAnnotation, *d.Spec.Replicas+surge)
	for k, v := range d.Annotations {
		if g.chance(0.5) {
			rs.Annotations[k] = v
		}
	}
	if g.chance(0.1) {
		rs.Annotations["team"] = "red"
	}
	if g.chance(0.05) {
		rs.DeletionTimestamp = ptr.To(metav1.NewTime(worldEpoch.Add(time.Hour)))
		rs.Finalizers = []string{"example.com/hold"}
	}
	rs.Status = g.replicaSetStatus(rs)
	return rs
}

// replicasAnnotation sets a desired- or max-replicas annotation: the value
// a pass for the current size writes, a stale one, none, or an odd one
// (2^32 + value among them, which upstream's saturation check reads as
// value).
func (g *worldGen) replicasAnnotation(rs *appsv1.ReplicaSet, key string, current int32) {
	switch {
	case g.chance(0.55):
		rs.Annotations[key] = strconv.Itoa(int(current))
	case g.chance(0.35):
		rs.Annotations[key] = strconv.Itoa(g.r.IntN(11))
	case g.chance(0.3):
	case g.chance(0.3):
		rs.Annotations[key] = strconv.FormatInt(1<<32+int64(current), 10)
	default:
		rs.Annotations[key] = pick(g, oddNumbers...)
	}
}

// replicaSetStatus draws what the ReplicaSet controller last reported,
// within the API's rules (ready and available never above replicas,
// available never above ready), for this generation or an older one.
func (g *worldGen) replicaSetStatus(rs *appsv1.ReplicaSet) appsv1.ReplicaSetStatus {
	size := *rs.Spec.Replicas
	n := size
	if g.chance(0.4) {
		n = g.r.Int32N(size + 3)
	}
	ready := n
	if g.chance(0.4) {
		ready = g.r.Int32N(n + 1)
	}
	available := ready
	if g.chance(0.3) {
		available = g.r.Int32N(ready + 1)
	}
	st := appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: ready, AvailableReplicas: available,
		ObservedGeneration: rs.Generation}
	switch {
	case g.chance(0.1):
		st.ObservedGeneration = rs.Generation - 1
	case g.chance(0.05):
		st = appsv1.ReplicaSetStatus{} // never synced
		return st
	}
	if g.chance(0.85) {
		st.TerminatingReplicas = ptr.To(g.r.Int32N(2))
	}
	if g.chance(0.05) {
		st.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: "exceeded quota", LastTransitionTime: metav1.NewTime(worldEpoch.Add(2 * time.Hour))}}
	}
	return st
}

// collider is a ReplicaSet holding the name d's new ReplicaSet would get,
// with another template: a hash collision, or someone else's object.
func (g *worldGen) collider(d *appsv1.Deployment, names map[string]bool) *appsv1.ReplicaSet {
	hash := ours.PodTemplateHash(&d.Spec.Template, d.Status.CollisionCount)
	name := rsName(d.Name, hash)
	for names[name] {
		name += "x"
	}
	other := g.template(d.Spec.Template.Labels, "collider")
	return g.replicaSet(d, other, hash, name)
}

// revisionAnnotations numbers the ReplicaSets' revisions in a random order,
// with some missing, repeated or unparsable, and gives d a revision and
// perhaps a rollback request.
func (g *worldGen) revisionAnnotations(d *appsv1.Deployment, rss []*appsv1.ReplicaSet) {
	order := g.r.Perm(len(rss) + 2)
	for i, rs := range rss {
		switch {
		case g.chance(0.1):
		case g.chance(0.12):
			rs.Annotations[ours.RevisionAnnotation] = pick(g, "abc", "x1", "", " 3", "+3", "3.0", "99999999999999999999", "-2")
		case g.chance(0.05) && i > 0:
			rs.Annotations[ours.RevisionAnnotation] = rss[i-1].Annotations[ours.RevisionAnnotation]
		default:
			rs.Annotations[ours.RevisionAnnotation] = strconv.Itoa(order[i] + 1)
		}
		if g.chance(0.1) {
			// The last one is past the 2000 characters the history is cut to.
			rs.Annotations[ours.RevisionHistoryAnnotation] = pick(g, "1", "1,3", "", strings.Repeat("7,", 700)+"7", strings.Repeat("12,", 700)+"12")
		}
	}
	if g.chance(0.7) {
		d.Annotations[ours.RevisionAnnotation] = strconv.Itoa(g.r.IntN(len(rss) + 3))
	}
	if g.chance(0.15) {
		d.Annotations[appsv1.DeprecatedRollbackTo] = pick(g, "0", "0", strconv.Itoa(g.r.IntN(len(rss)+2)+1), "99", "abc")
	}
}

// pods draws the pods of one ReplicaSet, in any phase, some being deleted.
// They matter to Recreate, which waits for old pods to be gone.
func (g *worldGen) pods(rs *appsv1.ReplicaSet, i int) []*corev1.Pod {
	n := min(int(rs.Status.Replicas), 8)
	if g.chance(0.2) {
		n += g.r.IntN(2)
	}
	var out []*corev1.Pod
	for j := range n {
		p := podOf(rs, fmt.Sprintf("pod-%d-%d", i, j), pick(g, corev1.PodRunning, corev1.PodRunning, corev1.PodPending,
			corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown))
		if g.chance(0.1) {
			p.DeletionTimestamp = ptr.To(metav1.NewTime(worldEpoch.Add(time.Hour)))
			p.Finalizers = []string{"kubelet"}
		}
		out = append(out, p)
	}
	return out
}

// podOf is a pod the ReplicaSet controller created for rs.
func podOf(rs *appsv1.ReplicaSet, name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name), Labels: rs.Spec.Template.Labels,
			CreationTimestamp: rs.CreationTimestamp,
			OwnerReferences:   []metav1.OwnerReference{*metav1.NewControllerRef(rs, appsv1.SchemeGroupVersion.WithKind("ReplicaSet"))}},
		Spec:   rs.Spec.Template.Spec,
		Status: corev1.PodStatus{Phase: phase},
	}
}

// servedDiffers draws what the API server holds when the caches lag
// behind it: the Deployment deleted or re-created (adoption must be
// refused), a cached ReplicaSet already gone, or the new ReplicaSet already
// created but not yet seen.
func (g *worldGen) servedDiffers(d *appsv1.Deployment, cached []runtime.Object) []runtime.Object {
	served := copies(cached)
	switch g.r.IntN(4) {
	case 0:
		sd := served[0].(*appsv1.Deployment)
		sd.UID = "uid-foo-recreated"
	case 1:
		sd := served[0].(*appsv1.Deployment)
		sd.DeletionTimestamp = ptr.To(metav1.NewTime(worldEpoch.Add(time.Hour)))
		sd.Finalizers = []string{metav1.FinalizerDeleteDependents}
	case 2:
		for i, o := range served {
			if _, ok := o.(*appsv1.ReplicaSet); ok && g.chance(0.5) {
				return append(served[:i:i], served[i+1:]...)
			}
		}
	case 3:
		tmpl := *d.Spec.Template.DeepCopy()
		hash := ours.PodTemplateHash(&tmpl, d.Status.CollisionCount)
		rs := g.replicaSet(d, tmpl, hash, rsName(d.Name, hash))
		rs.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
		for _, o := range served {
			if o, ok := o.(*appsv1.ReplicaSet); ok && o.Name == rs.Name {
				return served
			}
		}
		served = append(served, rs)
	}
	return served
}
