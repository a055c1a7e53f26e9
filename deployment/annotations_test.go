package deployment

import (
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestCopyDeploymentAnnotations(t *testing.T) {
	d := newDeployment("web", 3)
	d.Annotations = map[string]string{
		"team":                                   "payments",
		"deployment.kubernetes.io/custom":        "copied: only the controller's own keys are skipped",
		corev1.LastAppliedConfigAnnotation:       "{...}",
		RevisionAnnotation:                       "9",
		RevisionHistoryAnnotation:                "1,2",
		DesiredReplicasAnnotation:                "3",
		MaxReplicasAnnotation:                    "4",
		appsv1.DeprecatedRollbackTo:              "1",
		"kubernetes.io/change-cause":             "kubectl set image",
		"shared-key-with-the-same-value-already": "same",
	}
	rs := newReplicaSet(d, "abc", 3, 0)
	rs.Annotations = map[string]string{
		RevisionAnnotation:                       "2",
		"kept":                                   "an RS annotation the Deployment lacks stays",
		"shared-key-with-the-same-value-already": "same",
	}

	if !copyDeploymentAnnotations(d, rs) {
		t.Fatal("copyDeploymentAnnotations() = false, want true: user annotations were missing")
	}
	want := map[string]string{
		RevisionAnnotation:                       "2",
		"kept":                                   "an RS annotation the Deployment lacks stays",
		"shared-key-with-the-same-value-already": "same",
		"team":                                   "payments",
		"deployment.kubernetes.io/custom":        "copied: only the controller's own keys are skipped",
		"kubernetes.io/change-cause":             "kubectl set image",
	}
	if diff := cmp.Diff(want, rs.Annotations); diff != "" {
		t.Errorf("annotations after copy (-want +got):\n%s", diff)
	}
	if copyDeploymentAnnotations(d, rs) {
		t.Error("second copyDeploymentAnnotations() = true, want false: nothing left to copy")
	}
}

func TestSkippedAnnotations(t *testing.T) {
	for _, key := range []string{corev1.LastAppliedConfigAnnotation, RevisionAnnotation, RevisionHistoryAnnotation,
		DesiredReplicasAnnotation, MaxReplicasAnnotation, appsv1.DeprecatedRollbackTo} {
		if !isSkippedAnnotation(key) {
			t.Errorf("isSkippedAnnotation(%q) = false, want true", key)
		}
	}
	for _, key := range []string{"", "team", "deployment.kubernetes.io/other", "kubernetes.io/change-cause"} {
		if isSkippedAnnotation(key) {
			t.Errorf("isSkippedAnnotation(%q) = true, want false", key)
		}
	}
}

func TestSetNewReplicaSetAnnotationsRevision(t *testing.T) {
	tests := []struct {
		name        string
		rsRevision  *string // nil: no annotation
		rsHistory   *string
		newRevision string
		limit       int
		wantChanged bool
		wantRev     *string // nil: no annotation
		wantHistory *string
	}{
		{name: "first revision, no history", newRevision: "1", limit: 2000, wantChanged: true, wantRev: strp("1")},
		{name: "raised: old revision goes to history", rsRevision: strp("2"), newRevision: "5", limit: 2000, wantChanged: true, wantRev: strp("5"), wantHistory: strp("2")},
		{name: "raised: appended to existing history", rsRevision: strp("4"), rsHistory: strp("1,2"), newRevision: "7", limit: 2000, wantChanged: true, wantRev: strp("7"), wantHistory: strp("1,2,4")},
		{name: "empty first history entry starts over", rsRevision: strp("4"), rsHistory: strp(",2"), newRevision: "7", limit: 2000, wantChanged: true, wantRev: strp("7"), wantHistory: strp("4")},
		{name: "equal revision: nothing", rsRevision: strp("5"), newRevision: "5", limit: 2000, wantChanged: false, wantRev: strp("5")},
		{name: "never lowered", rsRevision: strp("9"), rsHistory: strp("3"), newRevision: "5", limit: 2000, wantChanged: false, wantRev: strp("9"), wantHistory: strp("3")},
		{name: "history trimmed from the front", rsRevision: strp("13"), rsHistory: strp("10,11,12"), newRevision: "14", limit: 8, wantChanged: true, wantRev: strp("14"), wantHistory: strp("11,12,13")},
		{name: "history trimmed by two entries", rsRevision: strp("13"), rsHistory: strp("10,11,12"), newRevision: "14", limit: 7, wantChanged: true, wantRev: strp("14"), wantHistory: strp("12,13")},
		{name: "history too long even alone: not appended", rsRevision: strp("12345"), rsHistory: strp("1"), newRevision: "20000", limit: 3, wantChanged: true, wantRev: strp("20000"), wantHistory: strp("1")},
		{name: "unparsable RS revision is left alone", rsRevision: strp("v2"), newRevision: "3", limit: 2000, wantChanged: false, wantRev: strp("v2")},
		{name: "empty RS revision counts as 0 but is replaced into history", rsRevision: strp(""), newRevision: "3", limit: 2000, wantChanged: true, wantRev: strp("3"), wantHistory: strp("")},
		{name: "unparsable new revision changes nothing", rsRevision: strp("2"), newRevision: "x", limit: 2000, wantChanged: false, wantRev: strp("2")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployment("web", 3)
			rs := newReplicaSet(d, "abc", 3, 0)
			rs.Annotations = map[string]string{}
			if tt.rsRevision != nil {
				rs.Annotations[RevisionAnnotation] = *tt.rsRevision
			}
			if tt.rsHistory != nil {
				rs.Annotations[RevisionHistoryAnnotation] = *tt.rsHistory
			}
			changed := setNewReplicaSetAnnotations(d, rs, tt.newRevision, true, tt.limit)
			if changed != tt.wantChanged {
				t.Errorf("setNewReplicaSetAnnotations() = %v, want %v", changed, tt.wantChanged)
			}
			checkAnnotation(t, rs.Annotations, RevisionAnnotation, tt.wantRev)
			checkAnnotation(t, rs.Annotations, RevisionHistoryAnnotation, tt.wantHistory)
			if _, ok := rs.Annotations[DesiredReplicasAnnotation]; ok {
				t.Errorf("an existing ReplicaSet got %s", DesiredReplicasAnnotation)
			}
		})
	}
}

// TestRevisionHistoryStaysWithinLimit raises one ReplicaSet's revision many
// times, as repeated rollbacks to it do, and checks the history keeps the
// latest revisions in order and never exceeds the limit.
func TestRevisionHistoryStaysWithinLimit(t *testing.T) {
	d := newDeployment("web", 3)
	rs := withRevision(newReplicaSet(d, "abc", 3, 0), "1")
	for rev := 2; rev <= 1500; rev++ {
		setNewReplicaSetAnnotations(d, rs, strconv.Itoa(rev), true, revisionHistoryLimitInChars)
		history := rs.Annotations[RevisionHistoryAnnotation]
		if len(history) > revisionHistoryLimitInChars {
			t.Fatalf("revision %d: history has %d characters, limit %d", rev, len(history), revisionHistoryLimitInChars)
		}
		entries := strings.Split(history, ",")
		if last := entries[len(entries)-1]; last != strconv.Itoa(rev-1) {
			t.Fatalf("revision %d: history ends with %q, want %d", rev, last, rev-1)
		}
		for i := 1; i < len(entries); i++ {
			prev, _ := strconv.Atoi(entries[i-1])
			cur, _ := strconv.Atoi(entries[i])
			if cur != prev+1 {
				t.Fatalf("revision %d: history %q is not the latest revisions in order", rev, history)
			}
		}
	}
	if got := rs.Annotations[RevisionAnnotation]; got != "1500" {
		t.Errorf("revision = %q, want 1500", got)
	}
	if len(rs.Annotations[RevisionHistoryAnnotation]) < revisionHistoryLimitInChars-5 {
		t.Errorf("history has %d characters: trimming dropped more than needed", len(rs.Annotations[RevisionHistoryAnnotation]))
	}
}

func TestSetNewReplicaSetAnnotationsReplicasOnCreate(t *testing.T) {
	d := withRolling(newDeployment("web", 10), intOrStr("25%"), intOrStr(1))
	d.Annotations = map[string]string{"team": "payments"}

	created := newReplicaSet(d, "abc", 10, 0)
	if !setNewReplicaSetAnnotations(d, created, "3", false, revisionHistoryLimitInChars) {
		t.Fatal("setNewReplicaSetAnnotations() = false for a new ReplicaSet")
	}
	want := map[string]string{"team": "payments", RevisionAnnotation: "3", DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "13"}
	if diff := cmp.Diff(want, created.Annotations); diff != "" {
		t.Errorf("annotations of a ReplicaSet to create (-want +got):\n%s", diff)
	}

	existing := withRevision(newReplicaSet(d, "abc", 10, 0), "3")
	existing.Annotations["team"] = "payments"
	if setNewReplicaSetAnnotations(d, existing, "3", true, revisionHistoryLimitInChars) {
		t.Error("setNewReplicaSetAnnotations() = true for an up-to-date existing ReplicaSet")
	}
	if _, ok := existing.Annotations[MaxReplicasAnnotation]; ok {
		t.Error("an existing ReplicaSet got replica annotations")
	}
}

func TestSetDeploymentAnnotationsTo(t *testing.T) {
	d := newDeployment("web", 3)
	d.Annotations = map[string]string{
		"team":                             "payments",
		"only-on-deployment":               "dropped",
		RevisionAnnotation:                 "5",
		corev1.LastAppliedConfigAnnotation: "{d}",
		appsv1.DeprecatedRollbackTo:        "2",
	}
	rs := newReplicaSet(d, "abc", 3, 0)
	rs.Annotations = map[string]string{
		"team":                             "search",
		"only-on-rs":                       "taken",
		RevisionAnnotation:                 "2",
		DesiredReplicasAnnotation:          "3",
		corev1.LastAppliedConfigAnnotation: "{rs}",
	}
	setDeploymentAnnotationsTo(d, rs)
	want := map[string]string{
		"team":                             "search",
		"only-on-rs":                       "taken",
		RevisionAnnotation:                 "5",
		corev1.LastAppliedConfigAnnotation: "{d}",
		appsv1.DeprecatedRollbackTo:        "2",
	}
	if diff := cmp.Diff(want, d.Annotations); diff != "" {
		t.Errorf("Deployment annotations after rollback (-want +got):\n%s", diff)
	}
}

func TestReplicasAnnotations(t *testing.T) {
	tests := []struct {
		name        string
		annotations map[string]string
		desired     int32
		max         int32
		want        bool
	}{
		{name: "no annotations", annotations: nil, desired: 10, max: 12, want: true},
		{name: "up to date", annotations: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "12"}, desired: 10, max: 12, want: false},
		{name: "desired differs", annotations: map[string]string{DesiredReplicasAnnotation: "9", MaxReplicasAnnotation: "12"}, desired: 10, max: 12, want: true},
		{name: "max differs", annotations: map[string]string{DesiredReplicasAnnotation: "10", MaxReplicasAnnotation: "11"}, desired: 10, max: 12, want: true},
		{name: "max missing", annotations: map[string]string{DesiredReplicasAnnotation: "10"}, desired: 10, max: 12, want: true},
		{name: "compared as text", annotations: map[string]string{DesiredReplicasAnnotation: "010", MaxReplicasAnnotation: "12"}, desired: 10, max: 12, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := newReplicaSet(newDeployment("web", 10), "abc", 10, 0)
			rs.Annotations = maps.Clone(tt.annotations)
			if got := replicasAnnotationsNeedUpdate(rs, tt.desired, tt.max); got != tt.want {
				t.Errorf("replicasAnnotationsNeedUpdate() = %v, want %v", got, tt.want)
			}
			if got := setReplicasAnnotations(rs, tt.desired, tt.max); got != tt.want {
				t.Errorf("setReplicasAnnotations() = %v, want %v", got, tt.want)
			}
			if replicasAnnotationsNeedUpdate(rs, tt.desired, tt.max) {
				t.Error("annotations still need an update after setReplicasAnnotations()")
			}
			if d, ok := desiredReplicasAnnotation(rs); !ok || d != tt.desired {
				t.Errorf("desiredReplicasAnnotation() = %d, %v; want %d, true", d, ok, tt.desired)
			}
			if m, ok := maxReplicasAnnotation(rs); !ok || m != tt.max {
				t.Errorf("maxReplicasAnnotation() = %d, %v; want %d, true", m, ok, tt.max)
			}
		})
	}
}

func TestReplicaAnnotationParsing(t *testing.T) {
	tests := []struct {
		value  *string
		want   int32
		wantOK bool
	}{
		{value: nil, want: 0, wantOK: false},
		{value: strp(""), want: 0, wantOK: false},
		{value: strp("0"), want: 0, wantOK: true},
		{value: strp("17"), want: 17, wantOK: true},
		{value: strp("2147483647"), want: 2147483647, wantOK: true},
		{value: strp("2147483648"), want: 0, wantOK: false},
		{value: strp("-1"), want: 0, wantOK: false},
		{value: strp("+3"), want: 0, wantOK: false},
		{value: strp("three"), want: 0, wantOK: false},
	}
	for _, tt := range tests {
		rs := newReplicaSet(newDeployment("web", 1), "abc", 1, 0)
		rs.Annotations = map[string]string{}
		if tt.value != nil {
			rs.Annotations[DesiredReplicasAnnotation] = *tt.value
		}
		got, ok := desiredReplicasAnnotation(rs)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("desiredReplicasAnnotation(%v) = %d, %v; want %d, %v", deref(tt.value), got, ok, tt.want, tt.wantOK)
		}
	}
}

func strp(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return "<absent>"
	}
	return strconv.Quote(*s)
}

func checkAnnotation(t *testing.T, annotations map[string]string, key string, want *string) {
	t.Helper()
	got, ok := annotations[key]
	switch {
	case want == nil && ok:
		t.Errorf("%s = %q, want no annotation", key, got)
	case want != nil && !ok:
		t.Errorf("%s missing, want %q", key, *want)
	case want != nil && got != *want:
		t.Errorf("%s = %q, want %q", key, got, *want)
	}
}
