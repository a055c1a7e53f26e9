package deployment

import (
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Annotations the Deployment controller reads and writes on Deployments and
// their ReplicaSets. The keys are upstream's: they are how upstream's
// controller and this one hand over state to each other.
const (
	// RevisionAnnotation holds the rollout sequence number of a ReplicaSet,
	// and on a Deployment the revision of its current ReplicaSet.
	RevisionAnnotation = "deployment.kubernetes.io/revision"
	// RevisionHistoryAnnotation lists, comma separated, the revisions a
	// ReplicaSet served before a rollback gave it a new one.
	RevisionHistoryAnnotation = "deployment.kubernetes.io/revision-history"
	// DesiredReplicasAnnotation records the Deployment's spec.replicas on
	// each ReplicaSet, which tells a scaling event from a rollout step.
	DesiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
	// MaxReplicasAnnotation records spec.replicas + maxSurge on each
	// ReplicaSet; proportional scaling divides by it.
	MaxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"
)

// Revision returns obj's revision annotation as a number: 0 when absent;
// 0 and an error when present but not an int64.
func Revision(obj metav1.Object) (int64, error) {
	v, ok := obj.GetAnnotations()[RevisionAnnotation]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, err
	}
	return n, nil
}

// maxRevision is the highest revision among rss; unparsable revisions and nil
// entries are skipped, and an empty list gives 0.
func maxRevision(rss []*appsv1.ReplicaSet) int64 {
	var highest int64
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		if v, err := Revision(rs); err == nil && v > highest {
			highest = v
		}
	}
	return highest
}

// lastRevision is the revision a rollback to "revision 0" goes to: the
// second highest among rss, or the highest when two ReplicaSets share it.
// Unparsable revisions are skipped.
func lastRevision(rss []*appsv1.ReplicaSet) int64 {
	var highest, second int64
	for _, rs := range rss {
		if rs == nil {
			continue
		}
		v, err := Revision(rs)
		switch {
		case err != nil:
		case v >= highest:
			second, highest = highest, v
		case v > second:
			second = v
		}
	}
	return second
}

// setDeploymentRevision sets d's revision annotation and reports whether it changed.
func setDeploymentRevision(d *appsv1.Deployment, revision string) bool {
	if d.Annotations[RevisionAnnotation] == revision && d.Annotations != nil {
		return false
	}
	if d.Annotations == nil {
		d.Annotations = make(map[string]string)
	}
	d.Annotations[RevisionAnnotation] = revision
	return true
}

// getRollbackTo returns the revision requested by the legacy rollback
// annotation. An empty or non-integer value counts as no request (and is
// left in place, as upstream does).
func getRollbackTo(d *appsv1.Deployment) (revision int64, ok bool) {
	v := d.Annotations[appsv1.DeprecatedRollbackTo]
	if v == "" {
		return 0, false
	}
	revision, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false
	}
	return revision, true
}

// clearRollbackTo removes the legacy rollback annotation from d.
func clearRollbackTo(d *appsv1.Deployment) {
	delete(d.Annotations, appsv1.DeprecatedRollbackTo)
}
