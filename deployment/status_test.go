package deployment

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestCalculateStatusCounts(t *testing.T) {
	d := newDeployment("web", 5)
	d.Generation = 7
	d.Status.CollisionCount = ptr.To[int32](2)
	oldRS := withStatus(newReplicaSet(withTemplateImage(newDeployment("web", 5), "v0"), "old", 3, 0), 3, 3, 2)
	newRS := withStatus(newReplicaSet(d, "new", 4, time.Minute), 4, 2, 1)
	now := testEpoch.Add(time.Hour)

	got := calculateStatus([]*appsv1.ReplicaSet{oldRS, newRS}, newRS, d, now, true)
	want := appsv1.DeploymentStatus{
		ObservedGeneration:  7,
		Replicas:            7,
		UpdatedReplicas:     4,
		ReadyReplicas:       5,
		AvailableReplicas:   3,
		UnavailableReplicas: 4, // specs 3+4 minus 3 available
		TerminatingReplicas: ptr.To[int32](0),
		CollisionCount:      ptr.To[int32](2),
		Conditions: []appsv1.DeploymentCondition{
			// 5 replicas, 25% unavailable rounds down to 1: 4 must be available, 3 are.
			newDeploymentCondition(appsv1.DeploymentAvailable, corev1.ConditionFalse, ReasonMinimumReplicasUnavailable, "Deployment does not have minimum availability.", now),
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calculateStatus (-want +got):\n%s", diff)
	}
}

func TestCalculateStatusUnavailableNeverNegative(t *testing.T) {
	d := newDeployment("web", 1)
	rs := withStatus(newReplicaSet(d, "abc", 1, 0), 3, 3, 3) // scaling down: more available than wanted
	if got := calculateStatus([]*appsv1.ReplicaSet{rs}, rs, d, testEpoch, false).UnavailableReplicas; got != 0 {
		t.Errorf("UnavailableReplicas = %d, want 0", got)
	}
}

func TestCalculateStatusAvailableCondition(t *testing.T) {
	earlier := testEpoch
	now := testEpoch.Add(time.Hour)
	tests := []struct {
		name       string
		d          *appsv1.Deployment
		available  int32
		current    []appsv1.DeploymentCondition
		wantStatus corev1.ConditionStatus
		wantReason string
		wantTimes  [2]time.Time // lastUpdate, lastTransition
	}{
		{name: "exactly the minimum (10 - 25% rounded down)", d: newDeployment("web", 10), available: 8,
			wantStatus: corev1.ConditionTrue, wantReason: ReasonMinimumReplicasAvailable, wantTimes: [2]time.Time{now, now}},
		{name: "one below the minimum", d: newDeployment("web", 10), available: 7,
			wantStatus: corev1.ConditionFalse, wantReason: ReasonMinimumReplicasUnavailable, wantTimes: [2]time.Time{now, now}},
		{name: "recreate needs every replica", d: withRecreate(newDeployment("web", 3)), available: 2,
			wantStatus: corev1.ConditionFalse, wantReason: ReasonMinimumReplicasUnavailable, wantTimes: [2]time.Time{now, now}},
		{name: "zero replicas are always available", d: newDeployment("web", 0), available: 0,
			wantStatus: corev1.ConditionTrue, wantReason: ReasonMinimumReplicasAvailable, wantTimes: [2]time.Time{now, now}},
		{name: "unchanged condition keeps its times", d: newDeployment("web", 2), available: 2,
			current: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: ReasonMinimumReplicasAvailable,
				LastUpdateTime: metav1.NewTime(earlier), LastTransitionTime: metav1.NewTime(earlier)}},
			wantStatus: corev1.ConditionTrue, wantReason: ReasonMinimumReplicasAvailable, wantTimes: [2]time.Time{earlier, earlier}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.d.Status.Conditions = tt.current
			rs := withStatus(newReplicaSet(tt.d, "abc", specReplicas(tt.d), 0), tt.available, tt.available, tt.available)
			status := calculateStatus([]*appsv1.ReplicaSet{rs}, rs, tt.d, now, true)
			c := GetCondition(status, appsv1.DeploymentAvailable)
			if c == nil {
				t.Fatal("no Available condition")
			}
			if c.Status != tt.wantStatus || c.Reason != tt.wantReason {
				t.Errorf("Available = %s/%s, want %s/%s", c.Status, c.Reason, tt.wantStatus, tt.wantReason)
			}
			if !c.LastUpdateTime.Time.Equal(tt.wantTimes[0]) || !c.LastTransitionTime.Time.Equal(tt.wantTimes[1]) {
				t.Errorf("times = %v, %v; want %v, %v", c.LastUpdateTime, c.LastTransitionTime, tt.wantTimes[0], tt.wantTimes[1])
			}
		})
	}
}

func TestCalculateStatusKeepsOtherConditionsAndDoesNotMutate(t *testing.T) {
	d := newDeployment("web", 1)
	progressing := progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, testEpoch)
	d.Status.Conditions = make([]appsv1.DeploymentCondition, 1, 4) // spare capacity: appending in place would show
	d.Status.Conditions[0] = progressing
	before := d.DeepCopy()
	rs := withStatus(newReplicaSet(d, "abc", 1, 0), 1, 1, 1)

	status := calculateStatus([]*appsv1.ReplicaSet{rs}, rs, d, testEpoch, true)
	if c := GetCondition(status, appsv1.DeploymentProgressing); c == nil || *c != progressing {
		t.Errorf("Progressing condition = %+v, want it kept as %+v", c, progressing)
	}
	if diff := cmp.Diff(before, d); diff != "" {
		t.Errorf("calculateStatus modified the Deployment (-before +after):\n%s", diff)
	}
	if got := d.Status.Conditions[:2][1]; got.Type != "" {
		t.Errorf("calculateStatus wrote %+v into the spare capacity of the Deployment's conditions", got)
	}
}

func TestCalculateStatusTerminatingReplicas(t *testing.T) {
	d := newDeployment("web", 3)
	synced := func(hash string, terminating *int32) *appsv1.ReplicaSet {
		rs := withStatus(newReplicaSet(d, hash, 1, 0), 1, 1, 1)
		rs.Status.TerminatingReplicas = terminating
		return rs
	}
	neverSynced := newReplicaSet(d, "fresh", 1, 0) // observedGeneration 0, no count
	syncedSilent := synced("silent", nil)
	tests := []struct {
		name  string
		rss   []*appsv1.ReplicaSet
		track bool
		want  *int32
	}{
		{name: "option off: never set", rss: []*appsv1.ReplicaSet{synced("a", ptr.To[int32](2))}, track: false, want: nil},
		{name: "no ReplicaSets: zero", rss: nil, track: true, want: ptr.To[int32](0)},
		{name: "only nil entries: zero", rss: []*appsv1.ReplicaSet{nil}, track: true, want: ptr.To[int32](0)},
		{name: "sum", rss: []*appsv1.ReplicaSet{synced("a", ptr.To[int32](2)), synced("b", ptr.To[int32](3))}, track: true, want: ptr.To[int32](5)},
		{name: "never-synced ReplicaSet skipped", rss: []*appsv1.ReplicaSet{synced("a", ptr.To[int32](2)), neverSynced}, track: true, want: ptr.To[int32](2)},
		{name: "synced ReplicaSet without a count: unknown", rss: []*appsv1.ReplicaSet{synced("a", ptr.To[int32](2)), syncedSilent}, track: true, want: nil},
		{name: "never synced but reporting: counted", rss: func() []*appsv1.ReplicaSet {
			rs := newReplicaSet(d, "odd", 1, 0)
			rs.Status.TerminatingReplicas = ptr.To[int32](4)
			return []*appsv1.ReplicaSet{rs}
		}(), track: true, want: ptr.To[int32](4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := calculateStatus(tt.rss, nil, d, testEpoch, tt.track).TerminatingReplicas
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("TerminatingReplicas (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCalculateStatusWithoutNewReplicaSet(t *testing.T) {
	d := newDeployment("web", 2)
	oldRS := withStatus(newReplicaSet(withTemplateImage(newDeployment("web", 2), "v0"), "old", 2, 0), 2, 2, 2)
	status := calculateStatus([]*appsv1.ReplicaSet{oldRS, nil}, nil, d, testEpoch, true)
	if status.UpdatedReplicas != 0 || status.Replicas != 2 || status.AvailableReplicas != 2 {
		t.Errorf("status = %+v; want 0 updated, 2 replicas, 2 available", status)
	}
}
