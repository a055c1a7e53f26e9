package deployment

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// stalledRollout is a rollout that cannot move: 1 replica, maxSurge 1,
// maxUnavailable 0, the new pod never becomes available. The Deployment's
// status is exactly what a pass computes, with a Progressing condition last
// updated at lastProgress, so a pass writes nothing.
func stalledRollout(lastProgress time.Time) (*appsv1.Deployment, *appsv1.ReplicaSet, *appsv1.ReplicaSet) {
	d := withRolling(newDeployment("foo", 1), intOrStr(1), intOrStr(0))
	old := withStatus(withRevision(newReplicaSet(d, "v1", 1, -time.Hour), "1"), 1, 1, 1)
	setReplicasAnnotations(old, 1, 2)
	withTemplateImage(d, "registry.example/app:v2")
	cur := withStatus(withRevision(newReplicaSet(d, "v2", 1, 0), "2"), 1, 0, 0)
	setReplicasAnnotations(cur, 1, 2)
	d.Annotations = map[string]string{RevisionAnnotation: "2"}
	d.Status = appsv1.DeploymentStatus{
		ObservedGeneration:  d.Generation,
		Replicas:            2,
		UpdatedReplicas:     1,
		ReadyReplicas:       1,
		AvailableReplicas:   1,
		UnavailableReplicas: 1,
		TerminatingReplicas: ptr.To[int32](0),
		Conditions: []appsv1.DeploymentCondition{
			{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: ReasonMinimumReplicasAvailable,
				Message: "Deployment has minimum availability.", LastUpdateTime: d.CreationTimestamp, LastTransitionTime: d.CreationTimestamp},
			progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, lastProgress),
		},
	}
	return d, old, cur
}

// A stalled rollout asks to be looked at again when its deadline passes,
// then reports ProgressDeadlineExceeded, then stops asking.
func TestProgressDeadlineRequeue(t *testing.T) {
	g := newSyncRig(t)
	lastProgress := g.clock.Now().Add(-100 * time.Second)
	d, old, cur := stalledRollout(lastProgress)
	g.add(d, old, cur)

	res := g.mustReconcile(d)
	assertWrites(t, g.writes())
	// 600 s deadline, 100 s gone, plus upstream's extra second.
	if want := 501 * time.Second; res.RequeueAfter != want {
		t.Fatalf("RequeueAfter = %v, want %v", res.RequeueAfter, want)
	}

	// Just before the deadline: requeued for right after it.
	g.clock.Step(499*time.Second + 500*time.Millisecond)
	g.client.ClearActions()
	res = g.mustReconcile(d)
	assertWrites(t, g.writes())
	if res.RequeueAfter <= 500*time.Millisecond || res.RequeueAfter > 600*time.Millisecond {
		t.Fatalf("RequeueAfter = %v, want just over the 500ms left", res.RequeueAfter)
	}

	// Past the deadline: timed out, written, no more requeues.
	g.clock.Step(res.RequeueAfter)
	g.client.ClearActions()
	res = g.mustReconcile(d)
	if !res.IsZero() {
		t.Errorf("RequeueAfter = %v after the timeout, want none", res.RequeueAfter)
	}
	assertWrites(t, g.writes(), "update deployments/status foo")
	cond := GetCondition(g.lastDeploymentWrite().Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Status != corev1.ConditionFalse || cond.Reason != ReasonProgressDeadlineExceeded ||
		cond.Message != `ReplicaSet "foo-v2" has timed out progressing.` {
		t.Fatalf("Progressing = %+v, want False/%s", cond, ReasonProgressDeadlineExceeded)
	}

	// Already timed out: nothing written, nothing requeued.
	timedOut := g.lastDeploymentWrite()
	g.addCached(timedOut)
	g.client.ClearActions()
	g.clock.Step(time.Hour)
	res = g.mustReconcile(timedOut)
	if !res.IsZero() || len(g.writes()) != 0 {
		t.Errorf("after timing out: %v, writes %q; want nothing", res, g.writes())
	}
}

// No requeue without a deadline, without a Progressing condition, or once
// the rollout is complete.
func TestProgressDeadlineNoRequeue(t *testing.T) {
	tests := []struct {
		name string
		edit func(g *syncRig, d *appsv1.Deployment, cur *appsv1.ReplicaSet)
	}{
		{"no deadline", func(g *syncRig, d *appsv1.Deployment, _ *appsv1.ReplicaSet) {
			d.Spec.ProgressDeadlineSeconds = nil
		}},
		{"unlimited deadline", func(g *syncRig, d *appsv1.Deployment, _ *appsv1.ReplicaSet) {
			d.Spec.ProgressDeadlineSeconds = ptr.To[int32](1<<31 - 1)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d, old, cur := stalledRollout(g.clock.Now().Add(-time.Second))
			tt.edit(g, d, cur)
			g.add(d, old, cur)
			res := g.mustReconcile(d)
			if !res.IsZero() {
				t.Errorf("RequeueAfter = %v, want none", res.RequeueAfter)
			}
			// Without a deadline the Progressing condition is dropped.
			assertWrites(t, g.writes(), "update deployments/status foo")
			if c := GetCondition(g.lastDeploymentWrite().Status, appsv1.DeploymentProgressing); c != nil {
				t.Errorf("Progressing = %+v, want removed", c)
			}
		})
	}
}

// A rollout that made progress refreshes Progressing (lastUpdateTime now,
// lastTransitionTime kept) and is not requeued: the write itself brings the
// key back.
func TestSyncRolloutStatusProgress(t *testing.T) {
	g := newSyncRig(t)
	lastProgress := g.clock.Now().Add(-time.Minute)
	d, old, cur := stalledRollout(lastProgress)
	withStatus(cur, 1, 1, 1) // the new pod became available
	g.add(d, old, cur)

	res := g.mustReconcile(d)
	if !res.IsZero() {
		t.Errorf("RequeueAfter = %v, want none", res.RequeueAfter)
	}
	// Old set scaled down (available 2 > minAvailable 1), then the status.
	assertWrites(t, g.writes(), "update replicasets foo-v1", "update deployments/status foo")
	cond := GetCondition(g.lastDeploymentWrite().Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason != ReasonReplicaSetUpdated || !cond.LastUpdateTime.Time.Equal(g.clock.Now()) ||
		!cond.LastTransitionTime.Time.Equal(lastProgress) {
		t.Errorf("Progressing = %+v; want ReplicaSetUpdated updated now, transitioned at %v", cond, lastProgress)
	}
}

// Upstream: TestSyncRolloutStatus's "complete" cases, through Reconcile: the
// rollout finished, Progressing says NewReplicaSetAvailable.
func TestSyncRolloutStatusComplete(t *testing.T) {
	g := newSyncRig(t)
	d, _, cur := stalledRollout(g.clock.Now().Add(-time.Minute))
	withStatus(cur, 1, 1, 1)
	d.Status.Replicas, d.Status.ReadyReplicas, d.Status.UnavailableReplicas = 1, 1, 0
	g.add(d, cur)

	res := g.mustReconcile(d)
	if !res.IsZero() {
		t.Errorf("RequeueAfter = %v, want none", res.RequeueAfter)
	}
	cond := GetCondition(g.lastDeploymentWrite().Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason != ReasonNewReplicaSetAvailable || cond.Message != `ReplicaSet "foo-v2" has successfully progressed.` {
		t.Errorf("Progressing = %+v, want NewReplicaSetAvailable", cond)
	}
}

// ReplicaFailure conditions of the ReplicaSets surface on the Deployment.
func TestSyncRolloutStatusReplicaFailure(t *testing.T) {
	g := newSyncRig(t)
	d, old, cur := stalledRollout(g.clock.Now().Add(-time.Minute))
	cur.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
		Reason: "FailedCreate", Message: "quota", LastTransitionTime: d.CreationTimestamp}}
	g.add(d, old, cur)

	g.mustReconcile(d)
	cond := GetCondition(g.lastDeploymentWrite().Status, appsv1.DeploymentReplicaFailure)
	if cond == nil || cond.Reason != "FailedCreate" || cond.Message != "quota" {
		t.Errorf("ReplicaFailure = %+v", cond)
	}
}

// Pause and resume are recorded in Progressing at once (Unknown), never over
// a timeout, and not at all without a deadline.
func TestCheckPausedConditions(t *testing.T) {
	tests := []struct {
		name       string
		paused     bool
		deadline   bool
		current    string
		wantReason string // "" = no write
	}{
		{"pausing", true, true, ReasonReplicaSetUpdated, ReasonDeploymentPaused},
		{"pausing without a condition", true, true, "", ReasonDeploymentPaused},
		{"already paused", true, true, ReasonDeploymentPaused, ""},
		{"resuming", false, true, ReasonDeploymentPaused, ReasonDeploymentResumed},
		{"running", false, true, ReasonReplicaSetUpdated, ""},
		{"timed out stays", true, true, ReasonProgressDeadlineExceeded, ""},
		{"no deadline", true, false, ReasonReplicaSetUpdated, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 1)
			d.Spec.Paused = tt.paused
			if !tt.deadline {
				d.Spec.ProgressDeadlineSeconds = nil
			}
			if tt.current != "" {
				d.Status.Conditions = []appsv1.DeploymentCondition{progressingCondition(corev1.ConditionTrue, tt.current, testEpoch)}
			}
			g.add(d)
			if err := g.r.checkPausedConditions(g.ctx(), d); err != nil {
				t.Fatal(err)
			}
			if tt.wantReason == "" {
				assertWrites(t, g.writes())
				return
			}
			assertWrites(t, g.writes(), "update deployments/status foo")
			cond := GetCondition(g.lastDeploymentWrite().Status, appsv1.DeploymentProgressing)
			if cond == nil || cond.Status != corev1.ConditionUnknown || cond.Reason != tt.wantReason {
				t.Errorf("Progressing = %+v, want Unknown/%s", cond, tt.wantReason)
			}
		})
	}
}

// The status of a non-rollout pass (here: being deleted) is written only
// when it changed, and leaves Progressing alone.
func TestSyncDeploymentStatusOnlyWhenChanged(t *testing.T) {
	g := newSyncRig(t)
	d, old, cur := stalledRollout(testEpoch) // long past the deadline
	g.add(d, old, cur)
	if err := g.r.syncDeploymentStatus(g.ctx(), []*appsv1.ReplicaSet{old, cur}, cur, d); err != nil {
		t.Fatal(err)
	}
	assertWrites(t, g.writes())

	withStatus(cur, 1, 1, 1)
	if err := g.r.syncDeploymentStatus(g.ctx(), []*appsv1.ReplicaSet{old, cur}, cur, d); err != nil {
		t.Fatal(err)
	}
	assertWrites(t, g.writes(), "update deployments/status foo")
	got := g.lastDeploymentWrite().Status
	if got.AvailableReplicas != 2 {
		t.Errorf("availableReplicas %d, want 2", got.AvailableReplicas)
	}
	if c := GetCondition(got, appsv1.DeploymentProgressing); c == nil || c.Reason != ReasonReplicaSetUpdated {
		t.Errorf("Progressing = %+v, want it untouched", c)
	}
}

// Upstream: TestRequeueStuckDeployment, through syncRolloutStatus: how long
// a stalled rollout waits before its next progress check.
func TestSyncRolloutStatusRequeue(t *testing.T) {
	tests := []struct {
		name      string
		left      time.Duration // before the 600 s deadline
		edit      func(d *appsv1.Deployment)
		wantAfter time.Duration // 0: no requeue
	}{
		{name: "stuck, 30s left", left: 30 * time.Second, wantAfter: 31 * time.Second},
		{name: "stuck, 1s left", left: time.Second, wantAfter: 2 * time.Second},
		{name: "stuck, under a second left: right after the deadline", left: 300 * time.Millisecond, wantAfter: 300*time.Millisecond + progressRecheckSlack},
		{name: "stuck, deadline now: at once", left: 0, wantAfter: progressRecheckSlack},
		{name: "no progressing condition", left: 30 * time.Second, edit: func(d *appsv1.Deployment) {
			d.Status.Conditions = d.Status.Conditions[:1]
		}},
		{name: "already failed", left: 30 * time.Second, edit: func(d *appsv1.Deployment) {
			d.Status.Conditions[1] = progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, testEpoch)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d, old, cur := stalledRollout(g.clock.Now().Add(tt.left - 600*time.Second))
			if tt.edit != nil {
				tt.edit(d)
			}
			g.add(d, old, cur)
			res, err := g.r.syncRolloutStatus(g.ctx(), []*appsv1.ReplicaSet{old, cur}, cur, d)
			if err != nil {
				t.Fatal(err)
			}
			assertWrites(t, g.writes())
			if res.RequeueAfter != tt.wantAfter {
				t.Errorf("RequeueAfter = %v, want %v", res.RequeueAfter, tt.wantAfter)
			}
		})
	}
}

// Upstream: TestSyncRolloutStatus's Progressing cases, through
// syncRolloutStatus with a stalled rollout that made progress or not.
func TestSyncRolloutStatusConditions(t *testing.T) {
	tests := []struct {
		name           string
		current        *appsv1.DeploymentCondition
		progress       bool
		wantStatus     corev1.ConditionStatus
		wantReason     string
		keepTransition bool
	}{
		{name: "progress keeps lastTransitionTime of a True condition", progress: true,
			current:    ptrCond(progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, testEpoch)),
			wantStatus: corev1.ConditionTrue, wantReason: ReasonReplicaSetUpdated, keepTransition: true},
		{name: "progress after a timeout updates everything", progress: true,
			current:    ptrCond(progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, testEpoch)),
			wantStatus: corev1.ConditionTrue, wantReason: ReasonReplicaSetUpdated},
		{name: "progress creates the condition", progress: true,
			wantStatus: corev1.ConditionTrue, wantReason: ReasonReplicaSetUpdated},
		{name: "no progress past the deadline times out",
			current:    ptrCond(progressingCondition(corev1.ConditionTrue, ReasonReplicaSetUpdated, testEpoch)),
			wantStatus: corev1.ConditionFalse, wantReason: ReasonProgressDeadlineExceeded},
		{name: "an existing timeout stays as it is",
			current:    ptrCond(progressingCondition(corev1.ConditionFalse, ReasonProgressDeadlineExceeded, testEpoch)),
			wantStatus: corev1.ConditionFalse, wantReason: ReasonProgressDeadlineExceeded, keepTransition: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d, old, cur := stalledRollout(testEpoch)
			d.Status.Conditions = d.Status.Conditions[:1]
			if tt.current != nil {
				d.Status.Conditions = append(d.Status.Conditions, *tt.current)
			}
			if tt.progress {
				withStatus(cur, 1, 1, 1)
			}
			g.add(d, old, cur)
			if _, err := g.r.syncRolloutStatus(g.ctx(), []*appsv1.ReplicaSet{old, cur}, cur, d); err != nil {
				t.Fatal(err)
			}
			written := d
			if w := g.lastDeploymentWrite(); w != nil {
				written = w
			}
			cond := GetCondition(written.Status, appsv1.DeploymentProgressing)
			if cond == nil || cond.Status != tt.wantStatus || cond.Reason != tt.wantReason {
				t.Fatalf("Progressing = %+v, want %s/%s", cond, tt.wantStatus, tt.wantReason)
			}
			if kept := cond.LastTransitionTime.Time.Equal(testEpoch); kept != tt.keepTransition {
				t.Errorf("lastTransitionTime %v kept=%v, want kept=%v", cond.LastTransitionTime, kept, tt.keepTransition)
			}
		})
	}
}

func ptrCond(c appsv1.DeploymentCondition) *appsv1.DeploymentCondition { return &c }

// With TrackTerminatingReplicas off (the feature gate disabled upstream),
// status.terminatingReplicas is never written.
func TestTrackTerminatingReplicasOff(t *testing.T) {
	for _, track := range []bool{true, false} {
		g := newSyncRig(t)
		g.r.trackTerminating = track
		d := newDeployment("foo", 2)
		rs := withStatus(withRevision(newReplicaSet(d, "v1", 2, 0), "1"), 2, 2, 2)
		rs.Status.TerminatingReplicas = ptr.To[int32](3)
		setReplicasAnnotations(rs, 2, 3)
		g.add(d, rs)
		g.mustReconcile(d)
		got := g.lastDeploymentWrite().Status.TerminatingReplicas
		if track && (got == nil || *got != 3) || !track && got != nil {
			t.Errorf("track=%v: terminatingReplicas = %v", track, got)
		}
	}
}
