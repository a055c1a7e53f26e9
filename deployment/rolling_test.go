package deployment

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Upstream: TestDeploymentController_reconcileNewReplicaSet.
func TestReconcileNewReplicaSet(t *testing.T) {
	tests := []struct {
		name                  string
		replicas, surge       int32
		oldSize, newSize      int32
		wantScaled            bool
		wantNewSize           int32
		wantWrites, wantEvent bool
	}{
		{name: "no surge room: no scale up", replicas: 10, surge: 0, oldSize: 10, newSize: 0},
		{name: "surge 2 over a full old set", replicas: 10, surge: 2, oldSize: 10, newSize: 0, wantScaled: true, wantNewSize: 2},
		{name: "surge 2 over a half old set", replicas: 10, surge: 2, oldSize: 5, newSize: 0, wantScaled: true, wantNewSize: 7},
		{name: "surge already used", replicas: 10, surge: 2, oldSize: 10, newSize: 2},
		{name: "new set too large: scaled down", replicas: 10, surge: 2, oldSize: 2, newSize: 11, wantScaled: true, wantNewSize: 10},
		{name: "new set at size", replicas: 10, surge: 2, oldSize: 0, newSize: 10},
		{name: "never beyond spec.replicas", replicas: 3, surge: 10, oldSize: 0, newSize: 1, wantScaled: true, wantNewSize: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := withRolling(newDeployment("foo", tt.replicas), intOrStr(int(tt.surge)), intOrStr(0))
			oldRS := newReplicaSet(d, "old", tt.oldSize, -time.Hour)
			newRS := newReplicaSet(d, "new", tt.newSize, 0)
			g.addServed(oldRS, newRS)

			scaled, err := g.r.reconcileNewReplicaSet(g.ctx(), []*appsv1.ReplicaSet{newRS, oldRS}, newRS, d)
			if err != nil {
				t.Fatal(err)
			}
			if scaled != tt.wantScaled {
				t.Fatalf("scaled = %v, want %v (writes %q)", scaled, tt.wantScaled, g.writes())
			}
			if !tt.wantScaled {
				assertWrites(t, g.writes())
				return
			}
			assertWrites(t, g.writes(), "update replicasets foo-new")
			if got := g.sizes()["foo-new"]; got != tt.wantNewSize {
				t.Errorf("new size %d, want %d", got, tt.wantNewSize)
			}
		})
	}
}

// A nil maxSurge is an error when sizing the new ReplicaSet, as upstream.
func TestReconcileNewReplicaSetNilSurge(t *testing.T) {
	g := newSyncRig(t)
	d := withRolling(newDeployment("foo", 3), nil, intOrStr(1))
	newRS := newReplicaSet(d, "new", 1, 0)
	_, err := g.r.reconcileNewReplicaSet(g.ctx(), []*appsv1.ReplicaSet{newRS}, newRS, d)
	if err == nil {
		t.Fatal("want an error for a nil maxSurge")
	}
	assertWrites(t, g.writes())
}

// Upstream: TestDeploymentController_reconcileOldReplicaSets.
func TestReconcileOldReplicaSets(t *testing.T) {
	tests := []struct {
		name                   string
		replicas, unavailable  int32
		oldSize, newSize       int32
		oldAvailable, newAvail int32
		wantScaled             bool
		wantOldSize            int32
	}{
		{name: "maxUnavailable 0 still lets one go (fencepost)", replicas: 10, unavailable: 0, oldSize: 10, oldAvailable: 10, wantScaled: true, wantOldSize: 9},
		{name: "maxUnavailable 2", replicas: 10, unavailable: 2, oldSize: 10, oldAvailable: 10, wantScaled: true, wantOldSize: 8},
		{name: "unhealthy old replicas cleaned up", replicas: 10, unavailable: 2, oldSize: 10, oldAvailable: 8, wantScaled: true, wantOldSize: 8},
		{name: "one unhealthy cleaned, one healthy scaled", replicas: 10, unavailable: 2, oldSize: 10, oldAvailable: 9, wantScaled: true, wantOldSize: 8},
		{name: "unavailable new pods hold the old ones", replicas: 10, unavailable: 2, oldSize: 8, newSize: 2, oldAvailable: 8},
		{name: "no old pods left", replicas: 10, unavailable: 2, oldSize: 0, newSize: 10, newAvail: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := withRolling(newDeployment("foo", tt.replicas), intOrStr(0), intOrStr(int(tt.unavailable)))
			oldRS := newReplicaSet(d, "old", tt.oldSize, -time.Hour)
			oldRS.Status.AvailableReplicas = tt.oldAvailable
			newRS := newReplicaSet(d, "new", tt.newSize, 0)
			newRS.Status.AvailableReplicas = tt.newAvail
			g.addServed(oldRS, newRS)

			scaled, err := g.r.reconcileOldReplicaSets(g.ctx(), []*appsv1.ReplicaSet{oldRS, newRS}, []*appsv1.ReplicaSet{oldRS}, newRS, d)
			if err != nil {
				t.Fatal(err)
			}
			if scaled != tt.wantScaled {
				t.Fatalf("scaled = %v, want %v (writes %q)", scaled, tt.wantScaled, g.writes())
			}
			if tt.wantScaled {
				if got := g.sizes()["foo-old"]; got != tt.wantOldSize {
					t.Errorf("old size %d, want %d", got, tt.wantOldSize)
				}
			} else {
				assertWrites(t, g.writes())
			}
		})
	}
}

// An old ReplicaSet reporting more available replicas than its size makes
// the cleanup refuse, and nothing is scaled down this pass (no error).
func TestReconcileOldReplicaSetsOverAvailable(t *testing.T) {
	g := newSyncRig(t)
	d := withRolling(newDeployment("foo", 10), intOrStr(0), intOrStr(2))
	oldRS := newReplicaSet(d, "old", 5, -time.Hour)
	oldRS.Status.AvailableReplicas = 7
	newRS := newReplicaSet(d, "new", 5, 0)
	newRS.Status.AvailableReplicas = 5
	g.addServed(oldRS, newRS)

	scaled, err := g.r.reconcileOldReplicaSets(g.ctx(), []*appsv1.ReplicaSet{oldRS, newRS}, []*appsv1.ReplicaSet{oldRS}, newRS, d)
	if err != nil || scaled {
		t.Fatalf("reconcileOldReplicaSets = %v, %v; want false, nil", scaled, err)
	}
	assertWrites(t, g.writes())
}

// Upstream: TestDeploymentController_cleanupUnhealthyReplicas.
func TestCleanupUnhealthyReplicas(t *testing.T) {
	tests := []struct {
		name       string
		size       int32
		available  int32
		maxCleanup int32
		want       int32
	}{
		{"limited by maxCleanup", 10, 8, 1, 1},
		{"all unhealthy removed", 10, 8, 3, 2},
		{"nothing allowed", 10, 8, 0, 0},
		{"all healthy", 10, 10, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := withRolling(newDeployment("foo", 10), intOrStr(2), intOrStr(2))
			rs := newReplicaSet(d, "old", tt.size, 0)
			rs.Status.AvailableReplicas = tt.available
			g.addServed(rs)
			_, got, err := g.r.cleanupUnhealthyReplicas(g.ctx(), []*appsv1.ReplicaSet{rs}, d, tt.maxCleanup)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("cleaned %d, want %d", got, tt.want)
			}
			if tt.want > 0 && g.sizes()["foo-old"] != tt.size-tt.want {
				t.Errorf("size %d, want %d", g.sizes()["foo-old"], tt.size-tt.want)
			}
		})
	}
}

// Oldest first, each by its unavailable replicas, within the budget.
func TestCleanupUnhealthyReplicasOldestFirst(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 10)
	newer := newReplicaSet(d, "b", 4, -time.Minute)
	newer.Status.AvailableReplicas = 1
	older := newReplicaSet(d, "a", 4, -time.Hour)
	older.Status.AvailableReplicas = 2
	g.addServed(newer, older)
	rss, got, err := g.r.cleanupUnhealthyReplicas(g.ctx(), []*appsv1.ReplicaSet{newer, older}, d, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got != 3 {
		t.Errorf("cleaned %d, want 3", got)
	}
	assertWrites(t, g.writes(), "update replicasets foo-a", "update replicasets foo-b")
	if s := g.sizes(); s["foo-a"] != 2 || s["foo-b"] != 3 {
		t.Errorf("sizes %v, want foo-a 2, foo-b 3", s)
	}
	if rss[0].Name != "foo-a" || *rss[0].Spec.Replicas != 2 {
		t.Errorf("returned list should hold the updated oldest first, got %s/%d", rss[0].Name, *rss[0].Spec.Replicas)
	}
}

// Upstream: TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate.
func TestScaleDownOldReplicaSetsForRollingUpdate(t *testing.T) {
	tests := []struct {
		name        string
		unavailable int32
		available   int32
		size        int32
		want        int32 // new size; -1: no write
	}{
		{"maxUnavailable 0 (fencepost 1)", 0, 10, 10, 9},
		{"maxUnavailable 2", 2, 10, 10, 8},
		{"at minAvailable", 2, 8, 10, -1},
		{"empty old set", 2, 10, 0, -1},
		{"below minAvailable", 2, 1, 10, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := withRolling(newDeployment("foo", 10), intOrStr(0), intOrStr(int(tt.unavailable)))
			rs := newReplicaSet(d, "old", tt.size, 0)
			rs.Status.AvailableReplicas = tt.available
			g.addServed(rs)
			n, err := g.r.scaleDownOldReplicaSetsForRollingUpdate(g.ctx(), []*appsv1.ReplicaSet{rs}, []*appsv1.ReplicaSet{rs}, d)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want < 0 {
				if n != 0 {
					t.Errorf("scaled down %d, want 0", n)
				}
				assertWrites(t, g.writes())
				return
			}
			assertWrites(t, g.writes(), "update replicasets foo-old")
			if got := g.sizes()["foo-old"]; got != tt.want {
				t.Errorf("size %d, want %d", got, tt.want)
			}
			if n != tt.size-tt.want {
				t.Errorf("reported %d, want %d", n, tt.size-tt.want)
			}
		})
	}
}

// A whole rollout driven by Reconcile, with the test playing the ReplicaSet
// controller (pods become available at once): surge, scale down, repeat,
// until complete; then history is cleaned up.
func TestRolloutRollingToCompletion(t *testing.T) {
	g := newSyncRig(t)
	d := withRolling(newDeployment("foo", 4), intOrStr(1), intOrStr(1))
	d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
	oldRS := withStatus(withRevision(newReplicaSet(d, "v1", 4, -time.Hour), "1"), 4, 4, 4)
	setReplicasAnnotations(oldRS, 4, 5)
	withTemplateImage(d, "registry.example/app:v2")
	g.add(d, oldRS)

	for pass := 0; pass < 20; pass++ {
		g.client.ClearActions()
		if _, err := g.reconcile(d); err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
		if len(g.writes()) == 0 {
			break
		}
		g.settle()
		if obj, _, _ := g.deployments.GetByKey("default/foo"); obj != nil {
			d = obj.(*appsv1.Deployment)
		}
	}

	rss, _ := g.client.AppsV1().ReplicaSets(testNamespace).List(g.ctx(), metav1.ListOptions{})
	if len(rss.Items) != 1 {
		t.Fatalf("ReplicaSets left: %d, want only the new one (history limit 0)", len(rss.Items))
	}
	newRS := rss.Items[0]
	if *newRS.Spec.Replicas != 4 || newRS.Annotations[RevisionAnnotation] != "2" {
		t.Errorf("new ReplicaSet: size %d revision %q; want 4, 2", *newRS.Spec.Replicas, newRS.Annotations[RevisionAnnotation])
	}
	if !RolloutComplete(d, &d.Status) {
		t.Errorf("rollout not complete: %+v", d.Status)
	}
	cond := GetCondition(d.Status, appsv1.DeploymentProgressing)
	if cond == nil || cond.Reason != ReasonNewReplicaSetAvailable || cond.Status != corev1.ConditionTrue {
		t.Errorf("Progressing = %+v; want True/%s", cond, ReasonNewReplicaSetAvailable)
	}
}
