package deployment

import (
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// revisionHistoryLimitInChars bounds the revision-history annotation, as
// kube-controller-manager does by default.
const revisionHistoryLimitInChars = 2000

// isSkippedAnnotation reports whether key belongs to the Deployment or to the
// controller's bookkeeping rather than to the user: such keys are never copied
// from a Deployment to its ReplicaSets, nor back on rollback.
func isSkippedAnnotation(key string) bool {
	switch key {
	case corev1.LastAppliedConfigAnnotation,
		RevisionAnnotation,
		RevisionHistoryAnnotation,
		DesiredReplicasAnnotation,
		MaxReplicasAnnotation,
		appsv1.DeprecatedRollbackTo:
		return true
	}
	return false
}

// copyDeploymentAnnotations copies d's user annotations onto rs and reports
// whether rs changed. It never removes an annotation from rs.
func copyDeploymentAnnotations(d *appsv1.Deployment, rs *appsv1.ReplicaSet) bool {
	changed := false
	if rs.Annotations == nil {
		rs.Annotations = make(map[string]string)
	}
	for k, v := range d.Annotations {
		if isSkippedAnnotation(k) {
			continue
		}
		if cur, ok := rs.Annotations[k]; ok && cur == v {
			continue
		}
		rs.Annotations[k] = v
		changed = true
	}
	return changed
}

// setNewReplicaSetAnnotations brings newRS's annotations up to date for d: it
// copies d's user annotations, raises newRS's revision to newRevision (never
// lowers it), records a replaced revision in the revision history, and, for a
// ReplicaSet about to be created (exists false), sets the replica annotations.
// It reports whether anything changed.
func setNewReplicaSetAnnotations(d *appsv1.Deployment, newRS *appsv1.ReplicaSet, newRevision string, exists bool, revHistoryLimitInChars int) bool {
	changed := copyDeploymentAnnotations(d, newRS)

	oldRevision, hadRevision := newRS.Annotations[RevisionAnnotation]
	oldNum, err := strconv.ParseInt(oldRevision, 10, 64)
	if err != nil {
		if oldRevision != "" {
			// Someone else's value: leave it, as upstream does.
			return false
		}
		oldNum = 0
	}
	newNum, err := strconv.ParseInt(newRevision, 10, 64)
	if err != nil {
		return false
	}
	if oldNum < newNum {
		newRS.Annotations[RevisionAnnotation] = newRevision
		changed = true
		if hadRevision {
			// The ReplicaSet is being reused for a later revision (a
			// rollback): keep the revision it served so far.
			if history, ok := appendRevisionHistory(newRS.Annotations[RevisionHistoryAnnotation], oldRevision, revHistoryLimitInChars); ok {
				newRS.Annotations[RevisionHistoryAnnotation] = history
			}
		}
	}

	if !exists && setReplicasAnnotations(newRS, specReplicas(d), specReplicas(d)+maxSurge(d)) {
		changed = true
	}
	return changed
}

// appendRevisionHistory appends revision to the comma-separated history,
// dropping the oldest entries until the result fits in limit characters. ok is
// false when even dropping every old entry is not enough.
func appendRevisionHistory(history, revision string, limit int) (string, bool) {
	entries := strings.Split(history, ",")
	if entries[0] == "" {
		// Upstream starts over when the first entry is empty, which also
		// covers a missing annotation.
		return revision, true
	}
	total := len(history) + 1 + len(revision)
	start := 0
	for total > limit && start < len(entries) {
		total -= len(entries[start]) + 1
		start++
	}
	if total > limit {
		return "", false
	}
	return strings.Join(append(entries[start:len(entries):len(entries)], revision), ","), true
}

// setDeploymentAnnotationsTo gives d the user annotations of the ReplicaSet
// it rolls back to; d keeps only its own skipped (controller) annotations.
func setDeploymentAnnotationsTo(d *appsv1.Deployment, rollbackToRS *appsv1.ReplicaSet) {
	kept := make(map[string]string)
	for k, v := range d.Annotations {
		if isSkippedAnnotation(k) {
			kept[k] = v
		}
	}
	for k, v := range rollbackToRS.Annotations {
		if !isSkippedAnnotation(k) {
			kept[k] = v
		}
	}
	d.Annotations = kept
}

// setReplicasAnnotations writes the desired and max replica annotations on rs
// and reports whether either changed.
func setReplicasAnnotations(rs *appsv1.ReplicaSet, desired, max int32) bool {
	if rs.Annotations == nil {
		rs.Annotations = make(map[string]string)
	}
	changed := false
	for key, value := range map[string]string{
		DesiredReplicasAnnotation: strconv.FormatInt(int64(desired), 10),
		MaxReplicasAnnotation:     strconv.FormatInt(int64(max), 10),
	} {
		if rs.Annotations[key] != value {
			rs.Annotations[key] = value
			changed = true
		}
	}
	return changed
}

// replicasAnnotationsNeedUpdate reports whether setReplicasAnnotations would
// change rs.
func replicasAnnotationsNeedUpdate(rs *appsv1.ReplicaSet, desired, max int32) bool {
	return rs.Annotations[DesiredReplicasAnnotation] != strconv.FormatInt(int64(desired), 10) ||
		rs.Annotations[MaxReplicasAnnotation] != strconv.FormatInt(int64(max), 10)
}

// desiredReplicasAnnotation reads rs's desired-replicas annotation; ok is
// false when it is missing or not a number in [0, MaxInt32].
func desiredReplicasAnnotation(rs *appsv1.ReplicaSet) (int32, bool) {
	return nonNegativeInt32Annotation(rs, DesiredReplicasAnnotation)
}

// maxReplicasAnnotation reads rs's max-replicas annotation; ok is false when
// it is missing or not a number in [0, MaxInt32].
func maxReplicasAnnotation(rs *appsv1.ReplicaSet) (int32, bool) {
	return nonNegativeInt32Annotation(rs, MaxReplicasAnnotation)
}

func nonNegativeInt32Annotation(rs *appsv1.ReplicaSet, key string) (int32, bool) {
	v, ok := rs.Annotations[key]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(v, 10, 31)
	if err != nil {
		return 0, false
	}
	return int32(n), true
}
