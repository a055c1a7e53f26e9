package deployment

import (
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/ptr"
)

// Upstream: TestGenerateReplicaSetName and
// TestDeploymentController_generateReplicaSetName.
func TestGenerateReplicaSetName(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		name, deployment, hash, want string
	}{
		{"short name", "foo", "abc123", "foo-abc123"},
		{"maximum length without truncating", strings.Repeat("a", 242), "1234567890", strings.Repeat("a", 242) + "-1234567890"},
		{"very long deployment name is truncated", long, "1234567890", strings.Repeat("a", 242) + "-1234567890"},
		{"very long hash is not truncated", "foo", strings.Repeat("h", 260), "foo-" + strings.Repeat("h", 260)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := generateReplicaSetName(tt.deployment, tt.hash)
			if got != tt.want {
				t.Errorf("generateReplicaSetName = %q (%d chars), want %q", got, len(got), tt.want)
			}
			if len(tt.hash) < 253 && len(got) > 253 {
				t.Errorf("name of %d characters", len(got))
			}
		})
	}
}

// A foreign ReplicaSet holds the name: collisionCount goes up, the status is
// written, and the AlreadyExists error comes back so the key is retried; the
// retry picks another name.
func TestNewReplicaSetHashCollision(t *testing.T) {
	for _, start := range []*int32{nil, ptr.To[int32](4)} {
		g := newSyncRig(t)
		d := newDeployment("foo", 2)
		d.Status.CollisionCount = start
		name := "foo-" + PodTemplateHash(&d.Spec.Template, start)
		// Same name, another owner and another template.
		squatter := newReplicaSet(newDeployment("bar", 1), "x", 1, 0)
		squatter.Name = name
		squatter.Labels = map[string]string{"app": "bar"}
		g.add(d, squatter)

		_, err := g.reconcile(d)
		if !apierrors.IsAlreadyExists(err) {
			t.Fatalf("Reconcile error = %v, want AlreadyExists", err)
		}
		assertWrites(t, g.writes(), "create replicasets "+name, "update deployments/status foo")
		want := ptr.Deref(start, 0) + 1
		got := g.lastDeploymentWrite().Status.CollisionCount
		if got == nil || *got != want {
			t.Fatalf("collisionCount = %v, want %d", got, want)
		}
		assertEvents(t, g.events())

		// Next pass, with the new count: another name.
		g.settle()
		g.mustReconcile(d)
		other := "foo-" + PodTemplateHash(&d.Spec.Template, &want)
		if other == name {
			t.Fatal("the collision count did not change the hash")
		}
		if w := g.writes(); len(w) == 0 || w[0] != "create replicasets "+other {
			t.Errorf("writes %q, want a create of %s first", w, other)
		}
	}
}

// The same template owned by another Deployment is a collision too.
func TestNewReplicaSetCollisionWithSameTemplateOtherOwner(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 2)
	hash := PodTemplateHash(&d.Spec.Template, nil)
	twin := newReplicaSet(d, hash, 1, 0)
	twin.OwnerReferences[0].UID = "not-foo"
	g.add(d, twin)

	_, err := g.reconcile(d)
	if !apierrors.IsAlreadyExists(err) {
		t.Fatalf("Reconcile error = %v, want AlreadyExists", err)
	}
	if c := g.lastDeploymentWrite().Status.CollisionCount; c == nil || *c != 1 {
		t.Errorf("collisionCount = %v, want 1", c)
	}
}

// Create says AlreadyExists, but the ReplicaSet is ours with our template
// (the cache was just behind): it is used, without an event or a
// NewReplicaSetCreated condition, and the Deployment takes the new revision.
func TestNewReplicaSetAlreadyExistsOwnEqual(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 2)
	hash := PodTemplateHash(&d.Spec.Template, nil)
	mine := newReplicaSet(d, hash, 2, 0)
	g.add(d, mine)

	rs, old, err := g.r.getAllReplicaSetsAndSyncRevision(g.ctx(), d, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if rs == nil || rs.Name != mine.Name || len(old) != 0 {
		t.Fatalf("new = %v, old = %v; want %s and none", rs, old, mine.Name)
	}
	assertWrites(t, g.writes(), "create replicasets "+mine.Name, "update deployments/status foo")
	assertEvents(t, g.events())
	last := g.lastDeploymentWrite()
	if last.Annotations[RevisionAnnotation] != "1" {
		t.Errorf("revision %q, want 1", last.Annotations[RevisionAnnotation])
	}
	if c := GetCondition(last.Status, appsv1.DeploymentProgressing); c != nil {
		t.Errorf("Progressing = %+v, want none", c)
	}
	if last.Status.CollisionCount != nil {
		t.Error("collisionCount bumped for our own ReplicaSet")
	}
}

// AlreadyExists but not in the cache yet: the cache's NotFound is returned.
func TestNewReplicaSetAlreadyExistsNotCached(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 2)
	g.addCached(d)
	g.addServed(newReplicaSet(d, PodTemplateHash(&d.Spec.Template, nil), 2, 0))

	_, _, err := g.r.getAllReplicaSetsAndSyncRevision(g.ctx(), d, nil, true)
	if !apierrors.IsNotFound(err) {
		t.Fatalf("error = %v, want the cache's NotFound", err)
	}
}

// Any other create failure: with a deadline, Progressing=False
// ReplicaSetCreateError is written; in any case a Warning event.
func TestNewReplicaSetCreateError(t *testing.T) {
	for _, deadline := range []bool{true, false} {
		g := newSyncRig(t)
		d := newDeployment("foo", 2)
		if !deadline {
			d.Spec.ProgressDeadlineSeconds = nil
		}
		g.add(d)
		quota := apierrors.NewForbidden(appsv1.Resource("replicasets"), "x", errors.New("exceeded quota"))
		g.failOn("create", "replicasets", quota)

		_, err := g.reconcile(d)
		if !errors.Is(err, quota) {
			t.Fatalf("Reconcile error = %v, want the create error", err)
		}
		name := "foo-" + PodTemplateHash(&d.Spec.Template, nil)
		msg := `Failed to create new replica set "` + name + `": ` + quota.Error()
		assertEvents(t, g.events(), "Warning ReplicaSetCreateError "+msg)
		if !deadline {
			assertWrites(t, g.writes(), "create replicasets "+name)
			continue
		}
		assertWrites(t, g.writes(), "create replicasets "+name, "update deployments/status foo")
		cond := GetCondition(g.lastDeploymentWrite().Status, appsv1.DeploymentProgressing)
		if cond == nil || cond.Status != corev1.ConditionFalse || cond.Reason != ReasonReplicaSetCreateError || cond.Message != msg {
			t.Errorf("Progressing = %+v; want False/%s %q", cond, ReasonReplicaSetCreateError, msg)
		}
	}
}

// An existing new ReplicaSet with stale annotations or minReadySeconds is
// updated and the update's result returned; the Deployment is not written in
// that call.
func TestExistingNewReplicaSetUpdated(t *testing.T) {
	tests := []struct {
		name string
		edit func(d *appsv1.Deployment, rs *appsv1.ReplicaSet)
	}{
		{"revision behind the old ones", func(d *appsv1.Deployment, rs *appsv1.ReplicaSet) { withRevision(rs, "1") }},
		{"a new user annotation", func(d *appsv1.Deployment, rs *appsv1.ReplicaSet) {
			d.Annotations = map[string]string{"team": "blue"}
		}},
		{"minReadySeconds changed", func(d *appsv1.Deployment, rs *appsv1.ReplicaSet) { d.Spec.MinReadySeconds = 7 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 2)
			old := withRevision(newReplicaSet(withTemplateImage(d.DeepCopy(), "img:old"), "old", 0, -time.Hour), "2")
			rs := withRevision(newReplicaSet(d, "cur", 2, 0), "3")
			tt.edit(d, rs)
			g.add(d, old, rs)

			got, _, err := g.r.getAllReplicaSetsAndSyncRevision(g.ctx(), d, []*appsv1.ReplicaSet{old, rs}, false)
			if err != nil {
				t.Fatal(err)
			}
			assertWrites(t, g.writes(), "update replicasets foo-cur")
			if got.Annotations[RevisionAnnotation] != "3" || got.Spec.MinReadySeconds != d.Spec.MinReadySeconds {
				t.Errorf("returned revision %q minReadySeconds %d; want 3 and %d",
					got.Annotations[RevisionAnnotation], got.Spec.MinReadySeconds, d.Spec.MinReadySeconds)
			}
			if v := d.Annotations["team"]; v != "" && got.Annotations["team"] != v {
				t.Error("user annotation not copied")
			}
		})
	}
}

// An up-to-date new ReplicaSet gives the Deployment its revision, and a
// Deployment with a deadline and no Progressing condition gets
// FoundNewReplicaSet; both written with one status update.
func TestExistingNewReplicaSetSyncsDeployment(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 2)
	rs := withRevision(newReplicaSet(d, "cur", 2, 0), "1")
	g.add(d, rs)

	got, _, err := g.r.getAllReplicaSetsAndSyncRevision(g.ctx(), d, []*appsv1.ReplicaSet{rs}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != rs.Name {
		t.Fatalf("new = %s", got.Name)
	}
	assertWrites(t, g.writes(), "update deployments/status foo")
	last := g.lastDeploymentWrite()
	if last.Annotations[RevisionAnnotation] != "1" {
		t.Errorf("revision %q, want 1", last.Annotations[RevisionAnnotation])
	}
	cond := GetCondition(last.Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason != ReasonFoundNewReplicaSet || cond.Message != `Found new replica set "foo-cur"` ||
		!cond.LastUpdateTime.Time.Equal(g.clock.Now()) {
		t.Errorf("Progressing = %+v", cond)
	}

	// Nothing to do the second time.
	g.client.ClearActions()
	if _, _, err := g.r.getAllReplicaSetsAndSyncRevision(g.ctx(), last, []*appsv1.ReplicaSet{rs}, false); err != nil {
		t.Fatal(err)
	}
	assertWrites(t, g.writes())
}

// The new ReplicaSet's revision is one above the highest old revision, and
// its desired/max-replicas annotations and minReadySeconds come from the
// Deployment.
func TestCreatedReplicaSetAnnotations(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 4) // 25%/25%: surge 1
	d.Spec.MinReadySeconds = 5
	d.Annotations = map[string]string{"team": "blue", "kubectl.kubernetes.io/last-applied-configuration": "{}"}
	old := withStatus(withRevision(newReplicaSet(withTemplateImage(d.DeepCopy(), "img:old"), "old", 4, -time.Hour), "6"), 4, 4, 4)
	broken := withRevision(newReplicaSet(withTemplateImage(d.DeepCopy(), "img:older"), "older", 0, -2*time.Hour), "x")
	g.add(d, old, broken)

	g.mustReconcile(d)
	name := "foo-" + PodTemplateHash(&d.Spec.Template, nil)
	rs := g.servedReplicaSet(name)
	want := map[string]string{RevisionAnnotation: "7", DesiredReplicasAnnotation: "4", MaxReplicasAnnotation: "5", "team": "blue"}
	for k, v := range want {
		if rs.Annotations[k] != v {
			t.Errorf("annotation %s = %q, want %q", k, rs.Annotations[k], v)
		}
	}
	if _, ok := rs.Annotations["kubectl.kubernetes.io/last-applied-configuration"]; ok {
		t.Error("last-applied-configuration copied")
	}
	if rs.Spec.MinReadySeconds != 5 || *rs.Spec.Replicas != 1 {
		t.Errorf("minReadySeconds %d replicas %d; want 5 and 1", rs.Spec.MinReadySeconds, *rs.Spec.Replicas)
	}
}

// Without create, a missing new ReplicaSet is nil and nothing is written.
func TestNoNewReplicaSetWithoutCreate(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 2)
	rs, _, err := g.r.getAllReplicaSetsAndSyncRevision(g.ctx(), d, nil, false)
	if err != nil || rs != nil {
		t.Fatalf("= %v, %v; want nil, nil", rs, err)
	}
	assertWrites(t, g.writes())
}
