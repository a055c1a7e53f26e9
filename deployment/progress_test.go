package deployment

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// counts are the four replica numbers progress is judged on.
type counts struct{ replicas, updated, ready, available int32 }

// rollout builds a 3-replica Deployment (deadline 60 s) mid-rollout whose
// current status shows before, with an old and a new ReplicaSet whose
// reported pods add up to after. newRS is nil when after.updated is -1.
func rollout(before, after counts, conds ...appsv1.DeploymentCondition) (*appsv1.Deployment, []*appsv1.ReplicaSet, *appsv1.ReplicaSet) {
	d := newDeployment("web", 3)
	d.Spec.ProgressDeadlineSeconds = ptr.To[int32](60)
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration: d.Generation,
		Replicas:           before.replicas, UpdatedReplicas: before.updated,
		ReadyReplicas: before.ready, AvailableReplicas: before.available,
		Conditions: conds,
	}
	oldD := withTemplateImage(newDeployment("web", 3), "v0")
	if after.updated < 0 {
		old := withStatus(newReplicaSet(oldD, "old", after.replicas, 0), after.replicas, after.ready, after.available)
		return d, []*appsv1.ReplicaSet{old}, nil
	}
	newRS := withStatus(newReplicaSet(d, "new", after.updated, time.Minute), after.updated, min(after.ready, after.updated), min(after.available, after.updated))
	oldReplicas := after.replicas - after.updated
	old := withStatus(newReplicaSet(oldD, "old", oldReplicas, 0), oldReplicas, after.ready-newRS.Status.ReadyReplicas, after.available-newRS.Status.AvailableReplicas)
	return d, []*appsv1.ReplicaSet{old, newRS}, newRS
}

func TestRolloutStatusProgressing(t *testing.T) {
	lastUpdate := testEpoch                   // the current condition's times
	inTime := testEpoch.Add(30 * time.Second) // well within the 60 s deadline
	atDeadline := testEpoch.Add(60 * time.Second)
	late := testEpoch.Add(61 * time.Second)
	type want struct {
		status         corev1.ConditionStatus
		reason         string
		message        string
		lastUpdate     time.Time
		lastTransition time.Time
	}
	tests := []struct {
		name          string
		before, after counts
		current       []appsv1.DeploymentCondition
		deadline      *int32 // nil: keep 60
		noDeadline    bool
		now           time.Time
		want          *want // nil: no Progressing condition
	}{
		{
			name: "no deadline: condition removed", noDeadline: true, now: late,
			before: counts{3, 2, 2, 2}, after: counts{3, 3, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
		},
		{
			name: "MaxInt32 deadline means none: removed", deadline: ptr.To[int32](math.MaxInt32), now: late,
			before: counts{3, 2, 2, 2}, after: counts{3, 3, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
		},
		{
			name: "finished rollout is not re-estimated, even with pods unavailable", now: late,
			before: counts{3, 3, 3, 3}, after: counts{3, 3, 1, 1},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonNewReplicaSetAvailable, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonNewReplicaSetAvailable, "set by the test", lastUpdate, lastUpdate},
		},
		{
			name: "complete from progressing: transition time kept", now: inTime,
			before: counts{3, 2, 2, 2}, after: counts{3, 3, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonNewReplicaSetAvailable, `ReplicaSet "web-new" has successfully progressed.`, inTime, lastUpdate},
		},
		{
			name: "complete after a timeout: everything new", now: late,
			before: counts{3, 3, 3, 2}, after: counts{3, 3, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonNewReplicaSetAvailable, `ReplicaSet "web-new" has successfully progressed.`, late, late},
		},
		{
			name: "complete with no condition yet: created", now: inTime,
			before: counts{3, 3, 3, 3}, after: counts{3, 3, 3, 3},
			want: &want{corev1.ConditionTrue, ReasonNewReplicaSetAvailable, `ReplicaSet "web-new" has successfully progressed.`, inTime, inTime},
		},
		{
			name: "more updated pods: progressing, update time refreshed, transition kept", now: inTime,
			before: counts{4, 1, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, inTime, lastUpdate},
		},
		{
			name: "fewer old pods: progressing", now: inTime,
			before: counts{4, 2, 3, 3}, after: counts{3, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonNewReplicaSetCreated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, inTime, lastUpdate},
		},
		{
			name: "more ready pods: progressing", now: inTime,
			before: counts{4, 2, 2, 2}, after: counts{4, 2, 3, 2},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, inTime, lastUpdate},
		},
		{
			name: "more available pods: progressing even past the deadline", now: late,
			before: counts{4, 2, 3, 2}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, late, lastUpdate},
		},
		{
			name: "progress after a timeout: transition time new", now: late,
			before: counts{4, 1, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, late, late},
		},
		{
			name: "progress while resumed (Unknown): transition time new", now: inTime,
			before: counts{4, 1, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionUnknown, ReasonDeploymentResumed, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, inTime, inTime},
		},
		{
			name: "progress with no condition yet: created", now: inTime,
			before: counts{4, 1, 3, 3}, after: counts{4, 2, 3, 3},
			want: &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, `ReplicaSet "web-new" is progressing.`, inTime, inTime},
		},
		{
			name: "no progress within the deadline: unchanged", now: inTime,
			before: counts{4, 2, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, "set by the test", lastUpdate, lastUpdate},
		},
		{
			name: "no progress, exactly at the deadline: not yet timed out", now: atDeadline,
			before: counts{4, 2, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, "set by the test", lastUpdate, lastUpdate},
		},
		{
			name: "no progress past the deadline: timed out", now: late,
			before: counts{4, 2, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionFalse, ReasonProgressDeadlineExceeded, `ReplicaSet "web-new" has timed out progressing.`, late, late},
		},
		{
			name: "already timed out: left as it is", now: late.Add(time.Hour),
			before: counts{4, 2, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, lastUpdate)},
			want:    &want{corev1.ConditionFalse, ReasonProgressDeadlineExceeded, "set by the test", lastUpdate, lastUpdate},
		},
		{
			name: "a past success never times out", now: late,
			before: counts{4, 2, 3, 3}, after: counts{4, 2, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonNewReplicaSetAvailable, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonNewReplicaSetAvailable, "set by the test", lastUpdate, lastUpdate},
		},
		{
			name: "no condition and no progress: nothing to time out from", now: late,
			before: counts{4, 2, 3, 3}, after: counts{4, 2, 3, 3},
		},
		{
			name: "without a new ReplicaSet the message names the Deployment", now: inTime,
			before: counts{3, 0, 3, 3}, after: counts{3, -1, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionTrue, ReasonReplicaSetUpdated, "set by the test", lastUpdate, lastUpdate},
		},
		{
			name: "timed out without a new ReplicaSet: message names the Deployment", now: late,
			before: counts{3, 0, 3, 3}, after: counts{3, -1, 3, 3},
			current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)},
			want:    &want{corev1.ConditionFalse, ReasonProgressDeadlineExceeded, `Deployment "web" has timed out progressing.`, late, late},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, allRSs, newRS := rollout(tt.before, tt.after, tt.current...)
			switch {
			case tt.noDeadline:
				d.Spec.ProgressDeadlineSeconds = nil
			case tt.deadline != nil:
				d.Spec.ProgressDeadlineSeconds = tt.deadline
			}
			before := d.DeepCopy()
			status := rolloutStatus(d, allRSs, newRS, tt.now, true)
			if diff := cmp.Diff(before, d); diff != "" {
				t.Errorf("rolloutStatus modified the Deployment (-before +after):\n%s", diff)
			}
			got := GetCondition(status, appsv1.DeploymentProgressing)
			if tt.want == nil {
				if got != nil {
					t.Fatalf("Progressing = %+v, want none", got)
				}
				return
			}
			if got == nil {
				t.Fatal("no Progressing condition")
			}
			gotWant := want{got.Status, got.Reason, got.Message, got.LastUpdateTime.Time, got.LastTransitionTime.Time}
			if diff := cmp.Diff(*tt.want, gotWant, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("Progressing condition (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRolloutStatusDeploymentMessageWhenCompleteWithoutNewRS(t *testing.T) {
	d := newDeployment("web", 0)
	status := rolloutStatus(d, nil, nil, testEpoch, true)
	got := GetCondition(status, appsv1.DeploymentProgressing)
	if got == nil || got.Reason != ReasonNewReplicaSetAvailable || got.Message != `Deployment "web" has successfully progressed.` {
		t.Errorf("Progressing = %+v, want NewReplicaSetAvailable naming the Deployment", got)
	}
}

func TestRolloutStatusReplicaFailure(t *testing.T) {
	d, allRSs, newRS := rollout(counts{3, 1, 2, 2}, counts{3, 1, 2, 2})
	failedAt := metav1.NewTime(testEpoch.Add(-time.Minute))
	newRS.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
		Reason: "FailedCreate", Message: "quota exceeded", LastTransitionTime: failedAt}}

	status := rolloutStatus(d, allRSs, newRS, testEpoch, true)
	got := GetCondition(status, appsv1.DeploymentReplicaFailure)
	want := &appsv1.DeploymentCondition{Type: appsv1.DeploymentReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate",
		Message: "quota exceeded", LastUpdateTime: failedAt, LastTransitionTime: failedAt}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ReplicaFailure (-want +got):\n%s", diff)
	}

	// Once the ReplicaSets report no failure, the condition goes.
	d.Status = status
	newRS.Status.Conditions = nil
	if c := GetCondition(rolloutStatus(d, allRSs, newRS, testEpoch, true), appsv1.DeploymentReplicaFailure); c != nil {
		t.Errorf("ReplicaFailure = %+v after the failure cleared, want none", c)
	}
}

// TestRolloutStatusSettles checks that feeding the computed status back in
// yields the same status: a rollout pass that changed nothing writes nothing.
func TestRolloutStatusSettles(t *testing.T) {
	d, allRSs, newRS := rollout(counts{4, 1, 3, 3}, counts{4, 2, 3, 3})
	first := rolloutStatus(d, allRSs, newRS, testEpoch, true)
	if !statusChanged(d, &first) {
		t.Fatal("progress was made but statusChanged() = false")
	}
	d.Status = first
	second := rolloutStatus(d, allRSs, newRS, testEpoch.Add(10*time.Second), true)
	if statusChanged(d, &second) {
		t.Errorf("second pass changed the status:\n%s", cmp.Diff(first, second))
	}
}

func TestRolloutComplete(t *testing.T) {
	d := newDeployment("web", 3)
	d.Generation = 4
	tests := []struct {
		name   string
		status appsv1.DeploymentStatus
		want   bool
	}{
		{name: "all updated, available, observed", status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3, ObservedGeneration: 4}, want: true},
		{name: "newer generation observed", status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3, ObservedGeneration: 5}, want: true},
		{name: "old generation", status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 3, ObservedGeneration: 3}, want: false},
		{name: "old pods still there", status: appsv1.DeploymentStatus{Replicas: 4, UpdatedReplicas: 3, AvailableReplicas: 3, ObservedGeneration: 4}, want: false},
		{name: "not all updated", status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 2, AvailableReplicas: 3, ObservedGeneration: 4}, want: false},
		{name: "not all available", status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 2, ObservedGeneration: 4}, want: false},
		{name: "more available than wanted", status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, AvailableReplicas: 4, ObservedGeneration: 4}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := RolloutComplete(d, &tt.status); got != tt.want {
				t.Errorf("RolloutComplete() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRequeueForProgress(t *testing.T) {
	lastUpdate := testEpoch
	stuck := []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastUpdate)}
	timedOut := []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, lastUpdate)}
	tests := []struct {
		name            string
		deadline        *int32
		conds           []appsv1.DeploymentCondition
		complete        bool
		statusChanges   bool
		now             time.Time
		wantAfter       time.Duration
		wantRateLimited bool
		wantRequeue     bool
	}{
		{name: "no deadline", deadline: nil, conds: stuck, now: testEpoch},
		{name: "unlimited deadline", deadline: ptr.To[int32](math.MaxInt32), conds: stuck, now: testEpoch},
		{name: "no Progressing condition", deadline: ptr.To[int32](60), now: testEpoch},
		{name: "complete", deadline: ptr.To[int32](60), conds: stuck, complete: true, now: testEpoch},
		{name: "already timed out", deadline: ptr.To[int32](60), conds: timedOut, now: testEpoch},
		{name: "status about to be written", deadline: ptr.To[int32](60), conds: stuck, statusChanges: true, now: testEpoch},
		{name: "30 s left: after 31 s", deadline: ptr.To[int32](60), conds: stuck, now: testEpoch.Add(30 * time.Second), wantAfter: 31 * time.Second, wantRequeue: true},
		{name: "exactly 1 s left: after 2 s", deadline: ptr.To[int32](60), conds: stuck, now: testEpoch.Add(59 * time.Second), wantAfter: 2 * time.Second, wantRequeue: true},
		{name: "just under 1 s left: now, rate limited", deadline: ptr.To[int32](60), conds: stuck, now: testEpoch.Add(59*time.Second + time.Nanosecond), wantRateLimited: true, wantRequeue: true},
		{name: "at the deadline: now, rate limited", deadline: ptr.To[int32](60), conds: stuck, now: testEpoch.Add(60 * time.Second), wantRateLimited: true, wantRequeue: true},
		{name: "past the deadline: now, rate limited", deadline: ptr.To[int32](60), conds: stuck, now: testEpoch.Add(2 * time.Minute), wantRateLimited: true, wantRequeue: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployment("web", 3)
			d.Spec.ProgressDeadlineSeconds = tt.deadline
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 4, UpdatedReplicas: 1, AvailableReplicas: 3, Conditions: tt.conds}
			if tt.complete {
				d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 3, 3, 3
			}
			newStatus := *d.Status.DeepCopy()
			if tt.statusChanges {
				newStatus.ReadyReplicas++
			}
			after, rateLimited, requeue := requeueForProgress(d, d.Status, newStatus, tt.now)
			if after != tt.wantAfter || rateLimited != tt.wantRateLimited || requeue != tt.wantRequeue {
				t.Errorf("requeueForProgress() = %v, %v, %v; want %v, %v, %v", after, rateLimited, requeue, tt.wantAfter, tt.wantRateLimited, tt.wantRequeue)
			}
		})
	}
}

func TestSetPausedCondition(t *testing.T) {
	earlier, now := testEpoch, testEpoch.Add(time.Hour)
	tests := []struct {
		name       string
		paused     bool
		noDeadline bool
		current    []appsv1.DeploymentCondition
		wantChange bool
		wantReason string // "" : no Progressing condition
	}{
		{name: "pausing records DeploymentPaused", paused: true, current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, earlier)},
			wantChange: true, wantReason: ReasonDeploymentPaused},
		{name: "pausing with no condition yet", paused: true, wantChange: true, wantReason: ReasonDeploymentPaused},
		{name: "already recorded as paused", paused: true, current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionUnknown, ReasonDeploymentPaused, earlier)},
			wantChange: false, wantReason: ReasonDeploymentPaused},
		{name: "resuming records DeploymentResumed", paused: false, current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionUnknown, ReasonDeploymentPaused, earlier)},
			wantChange: true, wantReason: ReasonDeploymentResumed},
		{name: "not paused and never was", paused: false, current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, earlier)},
			wantChange: false, wantReason: ReasonReplicaSetUpdated},
		{name: "a timeout is never overwritten by a pause", paused: true, current: []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, earlier)},
			wantChange: false, wantReason: ReasonProgressDeadlineExceeded},
		{name: "no deadline: nothing recorded", paused: true, noDeadline: true, wantChange: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDeployment("web", 3)
			d.Spec.Paused = tt.paused
			if tt.noDeadline {
				d.Spec.ProgressDeadlineSeconds = nil
			}
			d.Status.Conditions = tt.current
			if got := setPausedCondition(d, now); got != tt.wantChange {
				t.Errorf("setPausedCondition() = %v, want %v", got, tt.wantChange)
			}
			c := GetCondition(d.Status, appsv1.DeploymentProgressing)
			switch {
			case tt.wantReason == "" && c != nil:
				t.Errorf("Progressing = %+v, want none", c)
			case tt.wantReason != "" && (c == nil || c.Reason != tt.wantReason):
				t.Errorf("Progressing = %+v, want reason %s", c, tt.wantReason)
			case tt.wantChange && (c.Status != corev1.ConditionUnknown || !c.LastUpdateTime.Time.Equal(now)):
				t.Errorf("Progressing = %+v, want Unknown updated at %v", c, now)
			}
		})
	}
}

func TestRolloutTimedOutNeedsADeadline(t *testing.T) {
	d := newDeployment("web", 3)
	d.Spec.ProgressDeadlineSeconds = nil
	status := appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{
		progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, testEpoch)}}
	if rolloutTimedOut(d, &status, testEpoch.Add(time.Hour)) {
		t.Error("rolloutTimedOut() = true without a progress deadline")
	}
}
