package upstreamcheck

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"
)

// maxModelledPods is the largest ReplicaSet whose pods the stand-in models
// one by one; larger ones just report their status.
const maxModelledPods = 40

// standIn plays, between two passes, the rest of the cluster: the API
// server's bookkeeping that the fake clientset skips (UIDs, creation times,
// generations), the ReplicaSet controller and the kubelets (pods created,
// started, failing, deleted, statuses reported, sometimes a pass late), the
// garbage collector, and now and then a user editing the Deployment.
type standIn struct {
	g      *worldGen
	step   int
	podSeq int
}

// next is the world the next pass starts from, given the API server's
// state after a pass (client) and the world that pass started from (prev).
func (s *standIn) next(t *testing.T, client *fake.Clientset, prev syncWorld) syncWorld {
	s.step++
	ctx := context.Background()
	prevByName := map[string]runtime.Object{}
	for _, o := range prev.cached {
		prevByName[fmt.Sprintf("%T/%s", o, objectName(o))] = o
	}
	var out []runtime.Object

	ds, err := client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Items {
		d := &ds.Items[i]
		if p, ok := prevByName[fmt.Sprintf("%T/%s", d, d.Name)].(*appsv1.Deployment); ok && !equality.Semantic.DeepEqual(p.Spec, d.Spec) {
			d.Generation = p.Generation + 1 // the API server counts spec changes
		}
		if s.g.chance(0.15) {
			s.edit(d)
		}
		if s.g.chance(0.1) {
			s.timePasses(d)
		}
		out = append(out, d)
	}

	rss, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	podsOf := map[types.UID][]*corev1.Pod{}
	for _, o := range prev.cached {
		if p, ok := o.(*corev1.Pod); ok {
			if ref := metav1.GetControllerOfNoCopy(p); ref != nil {
				podsOf[ref.UID] = append(podsOf[ref.UID], p.DeepCopy())
			}
		}
	}
	var pods []runtime.Object
	for i := range rss.Items {
		rs := &rss.Items[i]
		if rs.UID == "" { // created by the pass
			rs.UID = types.UID("uid-" + rs.Name)
			rs.CreationTimestamp = metav1.NewTime(worldEpoch.Add(time.Hour + time.Duration(s.step)*time.Minute))
			rs.Generation = 1
		} else if p, ok := prevByName[fmt.Sprintf("%T/%s", rs, rs.Name)].(*appsv1.ReplicaSet); ok && !equality.Semantic.DeepEqual(p.Spec, rs.Spec) {
			rs.Generation = p.Generation + 1
		}
		if rs.DeletionTimestamp != nil && s.g.chance(0.5) {
			continue // its finalizer is done: gone, and its pods with it
		}
		out = append(out, rs)
		if s.g.chance(0.15) {
			// The ReplicaSet controller has not got to it yet.
			for _, p := range podsOf[rs.UID] {
				pods = append(pods, p)
			}
			continue
		}
		for _, p := range s.syncReplicaSet(rs, podsOf[rs.UID]) {
			pods = append(pods, p)
		}
	}
	next := syncWorld{cached: append(out, pods...)}
	if s.g.chance(0.04) {
		next.refusals = []refusal{s.g.refusal()}
	}
	return next
}

func objectName(o runtime.Object) string {
	if m, ok := o.(metav1.Object); ok {
		return m.GetName()
	}
	return ""
}

// syncReplicaSet moves rs's pods one step (kubelets start, fail and finish
// deleting them; the ReplicaSet controller creates missing ones, a burst at
// a time, and deletes extra ones) and reports its status. It returns the
// pods that exist afterwards.
func (s *standIn) syncReplicaSet(rs *appsv1.ReplicaSet, prevPods []*corev1.Pod) []*corev1.Pod {
	size := *rs.Spec.Replicas
	if size > maxModelledPods || rs.Status.Replicas > maxModelledPods {
		available := min(size, rs.Status.AvailableReplicas+s.g.r.Int32N(20))
		rs.Status = appsv1.ReplicaSetStatus{Replicas: size, FullyLabeledReplicas: size, ReadyReplicas: available,
			AvailableReplicas: available, ObservedGeneration: rs.Generation, TerminatingReplicas: ptr.To[int32](0)}
		return nil
	}

	var active, terminating, finished []*corev1.Pod
	wasRunning := map[string]bool{}
	for _, p := range prevPods {
		switch {
		case p.DeletionTimestamp != nil:
			if s.g.chance(0.4) {
				terminating = append(terminating, p) // still shutting down
			}
		case p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed:
			if s.g.chance(0.7) {
				finished = append(finished, p) // not yet garbage collected
			}
		default:
			wasRunning[p.Name] = p.Status.Phase == corev1.PodRunning
			switch {
			case p.Status.Phase == corev1.PodPending && s.g.chance(0.7):
				p.Status.Phase = corev1.PodRunning
			case p.Status.Phase == corev1.PodRunning && s.g.chance(0.02):
				p.Status.Phase = corev1.PodFailed
			case p.Status.Phase == corev1.PodUnknown && s.g.chance(0.5):
				p.Status.Phase = corev1.PodRunning
			}
			if p.Status.Phase == corev1.PodFailed {
				finished = append(finished, p)
			} else {
				active = append(active, p)
			}
		}
	}
	if missing := int(size) - len(active); missing > 0 {
		for range 1 + s.g.r.IntN(missing) {
			s.podSeq++
			active = append(active, podOf(rs, "pod-s"+strconv.Itoa(s.podSeq), corev1.PodPending))
		}
	} else if missing < 0 {
		// Pods not running yet go first, as the ReplicaSet controller ranks them.
		slices.SortStableFunc(active, func(a, b *corev1.Pod) int {
			return cmp.Compare(btoi(a.Status.Phase == corev1.PodRunning), btoi(b.Status.Phase == corev1.PodRunning))
		})
		for _, p := range active[:-missing] {
			p.DeletionTimestamp = ptr.To(metav1.NewTime(worldEpoch.Add(2 * time.Hour)))
			p.Finalizers = []string{"kubelet"}
			terminating = append(terminating, p)
		}
		active = active[-missing:]
	}

	var ready, available int32
	for _, p := range active {
		if p.Status.Phase != corev1.PodRunning {
			continue
		}
		ready++
		if rs.Spec.MinReadySeconds == 0 || wasRunning[p.Name] {
			available++
		}
	}
	n := int32(len(active))
	rs.Status = appsv1.ReplicaSetStatus{Replicas: n, FullyLabeledReplicas: n, ReadyReplicas: ready, AvailableReplicas: available,
		ObservedGeneration: rs.Generation, TerminatingReplicas: ptr.To(int32(len(terminating))), Conditions: rs.Status.Conditions}
	return append(append(active, terminating...), finished...)
}

// edit is a user's change to the Deployment between two passes.
func (s *standIn) edit(d *appsv1.Deployment) {
	g := s.g
	spec := d.Spec.DeepCopy()
	switch g.r.IntN(8) {
	case 0, 1:
		d.Spec.Replicas = ptr.To(g.replicas())
	case 2, 3:
		d.Spec.Template.Spec.Containers[0].Image = pick(g, images...)
	case 4:
		d.Spec.Paused = !d.Spec.Paused
	case 5:
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		d.Annotations[appsv1.DeprecatedRollbackTo] = pick(g, "0", "1", "2", "3")
	case 6:
		d.Spec.Strategy = g.strategy()
	case 7:
		d.Spec.RevisionHistoryLimit = ptr.To(pick[int32](g, 0, 1, 2, 10))
	}
	if !equality.Semantic.DeepEqual(*spec, d.Spec) {
		d.Generation++
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// timePasses ages d's conditions as if the cluster had sat still: to just
// before the progress deadline (under a second left), just past it, or
// halfway there.
func (s *standIn) timePasses(d *appsv1.Deployment) {
	deadline := time.Hour
	if pds := d.Spec.ProgressDeadlineSeconds; pds != nil && *pds != math.MaxInt32 {
		deadline = time.Duration(*pds) * time.Second
	}
	idle := pick(s.g, deadline-500*time.Millisecond, deadline+5*time.Second, deadline/2)
	for i := range d.Status.Conditions {
		c := &d.Status.Conditions[i]
		c.LastUpdateTime = metav1.NewTime(c.LastUpdateTime.Add(-idle))
		c.LastTransitionTime = metav1.NewTime(c.LastTransitionTime.Add(-idle))
	}
}
