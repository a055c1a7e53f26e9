package deployment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// historyRS is an old ReplicaSet for the cleanup tests.
type historyRS struct {
	hash           string
	revision       string
	size, reported int32
	age            time.Duration // larger is older
	deleting       bool
	unobserved     bool // generation ahead of observedGeneration
}

func (h historyRS) build(d *appsv1.Deployment) *appsv1.ReplicaSet {
	rs := newReplicaSet(d, h.hash, h.size, -h.age)
	if h.revision != "" {
		withRevision(rs, h.revision)
	}
	rs.Status.Replicas = h.reported
	rs.Status.ObservedGeneration = rs.Generation
	if h.unobserved {
		rs.Generation++
	}
	if h.deleting {
		rs.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
	}
	return rs
}

// Upstream: TestDeploymentController_cleanupDeployment and
// TestDeploymentController_cleanupDeploymentOrder.
func TestCleanupDeployment(t *testing.T) {
	const m = time.Minute
	tests := []struct {
		name        string
		limit       *int32
		old         []historyRS
		wantDeleted []string
	}{
		{
			name:  "keeps the newest one",
			limit: ptr.To[int32](1),
			old:   []historyRS{{hash: "1", age: 3 * m}, {hash: "2", age: 2 * m}, {hash: "3", age: m}},
			// No revisions: creation time decides.
			wantDeleted: []string{"foo-1", "foo-2"},
		},
		{
			name:        "only empty ones are deleted, and only among the oldest",
			limit:       ptr.To[int32](0),
			old:         []historyRS{{hash: "1"}, {hash: "2", reported: 1}, {hash: "3", size: 1}, {hash: "4", size: 1, reported: 1}},
			wantDeleted: []string{"foo-1"},
		},
		{
			name:        "limit 0 deletes all empty ones",
			limit:       ptr.To[int32](0),
			old:         []historyRS{{hash: "1"}, {hash: "2"}},
			wantDeleted: []string{"foo-1", "foo-2"},
		},
		{
			name:  "nothing empty: nothing deleted",
			limit: ptr.To[int32](0),
			old:   []historyRS{{hash: "1", size: 1, reported: 1}, {hash: "2", size: 1, reported: 1}},
		},
		{
			name:  "one being deleted is not a candidate",
			limit: ptr.To[int32](0),
			old:   []historyRS{{hash: "1", deleting: true}},
		},
		{
			name:  "unlimited history",
			limit: ptr.To[int32](math.MaxInt32),
			old:   []historyRS{{hash: "1"}, {hash: "2"}, {hash: "3"}},
		},
		{
			name: "no limit set",
			old:  []historyRS{{hash: "1"}, {hash: "2"}, {hash: "3"}},
		},
		{
			name:        "a spec change the ReplicaSet controller has not seen is kept",
			limit:       ptr.To[int32](0),
			old:         []historyRS{{hash: "1", unobserved: true}, {hash: "2"}},
			wantDeleted: []string{"foo-2"},
		},
		{
			name:        "revision order: 1 < 2, delete 1",
			limit:       ptr.To[int32](1),
			old:         []historyRS{{hash: "1", revision: "1", age: 2 * m}, {hash: "2", revision: "2", age: m}},
			wantDeleted: []string{"foo-1"},
		},
		{
			name:        "revision order beats creation time",
			limit:       ptr.To[int32](1),
			old:         []historyRS{{hash: "1", revision: "2", age: 2 * m}, {hash: "2", revision: "1", age: m}},
			wantDeleted: []string{"foo-2"},
		},
		{
			name:        "a missing revision counts as 0 (newer one)",
			limit:       ptr.To[int32](1),
			old:         []historyRS{{hash: "1", revision: "1", age: 2 * m}, {hash: "2", age: m}},
			wantDeleted: []string{"foo-2"},
		},
		{
			name:        "a missing revision counts as 0 (older one)",
			limit:       ptr.To[int32](1),
			old:         []historyRS{{hash: "1", age: 2 * m}, {hash: "2", revision: "2", age: m}},
			wantDeleted: []string{"foo-1"},
		},
		{
			name:  "skipped candidates are not replaced by newer ones",
			limit: ptr.To[int32](1),
			old: []historyRS{{hash: "1", revision: "1", size: 1, reported: 1, age: 3 * m},
				{hash: "2", revision: "2", age: 2 * m}, {hash: "3", revision: "3", age: m}},
			wantDeleted: []string{"foo-2"},
		},
		{
			name:  "both oldest busy: nothing deleted",
			limit: ptr.To[int32](1),
			old: []historyRS{{hash: "1", revision: "1", size: 1, reported: 1, age: 3 * m},
				{hash: "2", revision: "2", size: 1, reported: 1, age: 2 * m}, {hash: "3", revision: "3", age: m}},
		},
		{
			name:  "revisions 3 1 4 2 keep 4 and 3",
			limit: ptr.To[int32](2),
			old: []historyRS{{hash: "1", revision: "3", age: 4 * m}, {hash: "2", revision: "1", age: 3 * m},
				{hash: "3", revision: "4", age: 2 * m}, {hash: "4", revision: "2", age: m}},
			wantDeleted: []string{"foo-2", "foo-4"},
		},
		{
			name:        "a negative limit (old objects) never reaches past the list",
			limit:       ptr.To[int32](-5),
			old:         []historyRS{{hash: "1"}, {hash: "2", size: 1}},
			wantDeleted: []string{"foo-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 1)
			d.Spec.RevisionHistoryLimit = tt.limit
			var old []*appsv1.ReplicaSet
			for _, h := range tt.old {
				rs := h.build(d)
				old = append(old, rs)
				g.addServed(rs)
			}
			if err := g.r.cleanupDeployment(g.ctx(), old, d); err != nil {
				t.Fatal(err)
			}
			var deleted []string
			for _, w := range g.writes() {
				name, ok := strings.CutPrefix(w, "delete replicasets ")
				if !ok {
					t.Errorf("unexpected write %q", w)
				}
				deleted = append(deleted, name)
			}
			slices.Sort(deleted)
			if !slices.Equal(deleted, tt.wantDeleted) {
				t.Errorf("deleted %q, want %q", deleted, tt.wantDeleted)
			}
		})
	}
}

// NotFound is ignored; any other error stops the cleanup at once.
func TestCleanupDeploymentErrors(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "replicasets"}
	tests := []struct {
		name      string
		err       error
		wantErr   bool
		wantTries int
	}{
		{"not found is fine", apierrors.NewNotFound(gr, "x"), false, 2},
		{"other errors stop", apierrors.NewServiceUnavailable("busy"), true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 1)
			d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
			old := []*appsv1.ReplicaSet{historyRS{hash: "1", age: time.Hour}.build(d), historyRS{hash: "2"}.build(d)}
			g.failOn("delete", "replicasets", tt.err)
			err := g.r.cleanupDeployment(g.ctx(), old, d)
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, tt.err)) {
				t.Fatalf("cleanupDeployment error = %v, want %v", err, tt.err)
			}
			if got := len(g.writes()); got != tt.wantTries {
				t.Errorf("%d deletes tried, want %d", got, tt.wantTries)
			}
		})
	}
}

// With parsed and unparsable revisions mixed, the order by revision is not
// a consistent order, and which ReplicaSets go depends on how the list is
// sorted. Upstream sorts the old ReplicaSets, in creation order, with
// sort.Sort; so must we. The world, from issue 18: a complete rollout of 6
// with revisionHistoryLimit 2 and 14 old, empty ReplicaSets. Upstream keeps
// revisions 10 and 14 (a stable sort would keep 2 and 8).
func TestCleanupOrderWithUnparsableRevisions(t *testing.T) {
	// Oldest first; "" is a ReplicaSet without a revision annotation.
	revisions := []string{"14", "1", "10", "4", "x1", "9", "16", "", "7", "", "abc", "8", "", "2"}
	g := newSyncRig(t)
	d := newDeployment("foo", 6)
	d.Spec.RevisionHistoryLimit = ptr.To[int32](2)
	d.Annotations = map[string]string{RevisionAnnotation: "17"}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: 6, UpdatedReplicas: 6, ReadyReplicas: 6, AvailableReplicas: 6}
	cur := withStatus(withRevision(newReplicaSet(d, "new", 6, 0), "17"), 6, 6, 6)
	setReplicasAnnotations(cur, 6, 6+maxSurge(d))
	g.add(d, cur)
	kept := map[string]bool{}
	for i, rev := range revisions {
		old := withTemplateImage(d.DeepCopy(), fmt.Sprintf("registry.example/app:v0.%d", i))
		rs := withStatus(newReplicaSet(old, fmt.Sprintf("old%02d", i), 0, -time.Duration(len(revisions)-i)*time.Minute), 0, 0, 0)
		if rev != "" {
			withRevision(rs, rev)
		}
		kept[rs.Name] = rev == "10" || rev == "14"
		g.add(rs)
	}

	g.mustReconcile(d)
	deleted := map[string]bool{}
	for _, w := range g.writes() {
		if name, ok := strings.CutPrefix(w, "delete replicasets "); ok {
			deleted[name] = true
		}
	}
	for name, keep := range kept {
		if deleted[name] == keep {
			t.Errorf("%s: deleted = %v, want %v", name, deleted[name], !keep)
		}
	}
}
