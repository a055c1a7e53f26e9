package deployment

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// scaleCase is one call of scale: the Deployment after a resize, the
// Deployment the ReplicaSets were last sized for (their desired/max-replicas
// annotations), the ReplicaSets, and the sizes expected afterwards.
type scaleCase struct {
	name                   string
	replicas, surge        int32
	oldReplicas, oldSurge  int32
	newRS                  *scaleRS
	oldRSs                 []scaleRS
	desiredOverride        map[string]int32 // desired-replicas annotations that differ
	want                   map[string]int32
	wantUntouched          []string // no write at all
	recreate, noAnnotation bool
	statusReplicas         int32
}

// scaleRS is a ReplicaSet of the scale tests: name suffix, size, age
// (larger is older) and available replicas.
type scaleRS struct {
	hash      string
	size      int32
	age       time.Duration
	available int32
}

func TestScale(t *testing.T) {
	rs := func(hash string, size int32, age time.Duration) scaleRS {
		return scaleRS{hash: hash, size: size, age: age}
	}
	const newer, old, older = 0, time.Hour, 2 * time.Hour
	tests := []scaleCase{
		{
			name: "normal scaling event: 10 -> 12", replicas: 12, oldReplicas: 10,
			newRS: &scaleRS{hash: "v1", size: 10},
			want:  map[string]int32{"foo-v1": 12},
		},
		{
			name: "normal scaling event: 10 -> 5", replicas: 5, oldReplicas: 10,
			newRS: &scaleRS{hash: "v1", size: 10},
			want:  map[string]int32{"foo-v1": 5},
		},
		{
			name: "proportional scaling: 5 -> 10", replicas: 10, oldReplicas: 5,
			newRS:  &scaleRS{hash: "v2", size: 2},
			oldRSs: []scaleRS{rs("v1", 3, old)},
			want:   map[string]int32{"foo-v2": 4, "foo-v1": 6},
		},
		{
			name: "proportional scaling: 5 -> 3", replicas: 3, oldReplicas: 5,
			newRS:  &scaleRS{hash: "v2", size: 2},
			oldRSs: []scaleRS{rs("v1", 3, old)},
			want:   map[string]int32{"foo-v2": 1, "foo-v1": 2},
		},
		{
			name: "proportional scaling: 9 -> 4", replicas: 4, oldReplicas: 9,
			newRS:  &scaleRS{hash: "v2", size: 8},
			oldRSs: []scaleRS{rs("v1", 1, old)},
			want:   map[string]int32{"foo-v2": 4, "foo-v1": 0},
		},
		{
			name: "proportional scaling: 7 -> 10", replicas: 10, oldReplicas: 7,
			newRS:  &scaleRS{hash: "v3", size: 2},
			oldRSs: []scaleRS{rs("v2", 3, old), rs("v1", 2, older)},
			want:   map[string]int32{"foo-v3": 3, "foo-v2": 4, "foo-v1": 3},
		},
		{
			name: "proportional scaling: 13 -> 8", replicas: 8, oldReplicas: 13,
			newRS:  &scaleRS{hash: "v3", size: 2},
			oldRSs: []scaleRS{rs("v2", 8, old), rs("v1", 3, older)},
			want:   map[string]int32{"foo-v3": 1, "foo-v2": 5, "foo-v1": 2},
		},
		{
			name: "leftover distribution: 3 -> 4 grows the newest", replicas: 4, oldReplicas: 3,
			newRS:  &scaleRS{hash: "v3", size: 1},
			oldRSs: []scaleRS{rs("v2", 1, old), rs("v1", 1, older)},
			want:   map[string]int32{"foo-v3": 2, "foo-v2": 1, "foo-v1": 1},
		},
		{
			name: "leftover distribution: 3 -> 2 shrinks the oldest", replicas: 2, oldReplicas: 3,
			newRS:  &scaleRS{hash: "v3", size: 1},
			oldRSs: []scaleRS{rs("v2", 1, old), rs("v1", 1, older)},
			want:   map[string]int32{"foo-v3": 1, "foo-v2": 1, "foo-v1": 0},
		},
		{
			name: "proportional scaling (no new rs): 4 -> 5 grows the newest first", replicas: 5, oldReplicas: 4,
			oldRSs: []scaleRS{rs("v2", 2, old), rs("v1", 2, older)},
			want:   map[string]int32{"foo-v2": 3, "foo-v1": 2},
		},
		{
			name: "proportional scaling: 6 -> 0", replicas: 0, oldReplicas: 6,
			newRS:  &scaleRS{hash: "v3", size: 3},
			oldRSs: []scaleRS{rs("v2", 2, old), rs("v1", 1, older)},
			want:   map[string]int32{"foo-v3": 0, "foo-v2": 0, "foo-v1": 0},
		},
		{
			name: "proportional scaling: 0 -> 6 grows only the new one", replicas: 6, oldReplicas: 6,
			newRS:         &scaleRS{hash: "v3", size: 0},
			oldRSs:        []scaleRS{rs("v2", 0, old), rs("v1", 0, older)},
			want:          map[string]int32{"foo-v3": 6, "foo-v2": 0, "foo-v1": 0},
			wantUntouched: []string{"foo-v2", "foo-v1"},
		},
		{
			name: "a ReplicaSet sized for another Deployment size gets its own proportion", replicas: 5, oldReplicas: 5,
			newRS:           &scaleRS{hash: "v3", size: 2},
			oldRSs:          []scaleRS{rs("v2", 1, old), rs("v1", 1, older)},
			desiredOverride: map[string]int32{"foo-v2": 3},
			want:            map[string]int32{"foo-v3": 2, "foo-v2": 2, "foo-v1": 1},
		},
		{
			name: "deployment with surge pods", replicas: 20, surge: 2, oldReplicas: 10, oldSurge: 2,
			newRS:  &scaleRS{hash: "v2", size: 6},
			oldRSs: []scaleRS{rs("v1", 6, old)},
			want:   map[string]int32{"foo-v2": 11, "foo-v1": 11},
		},
		{
			name: "change both surge and size", replicas: 50, surge: 6, oldReplicas: 10, oldSurge: 3,
			newRS:  &scaleRS{hash: "v2", size: 5},
			oldRSs: []scaleRS{rs("v1", 8, old)},
			want:   map[string]int32{"foo-v2": 22, "foo-v1": 34},
		},
		{
			name: "change both size and template (no new rs)", replicas: 14, oldReplicas: 10,
			oldRSs: []scaleRS{rs("v2", 7, newer), rs("v1", 3, old)},
			want:   map[string]int32{"foo-v2": 10, "foo-v1": 4},
		},
		{
			name: "saturated but broken new replica set does not affect old pods", replicas: 2, surge: 1, oldReplicas: 2, oldSurge: 1,
			newRS:  &scaleRS{hash: "v2", size: 2, available: 0},
			oldRSs: []scaleRS{rs("v1", 1, old)},
			want:   map[string]int32{"foo-v2": 2, "foo-v1": 1},
		},
		{
			name: "saturated new replica set empties the old ones", replicas: 2, surge: 1, oldReplicas: 2, oldSurge: 1,
			newRS:         &scaleRS{hash: "v2", size: 2, available: 2},
			oldRSs:        []scaleRS{rs("v1", 1, old), rs("v0", 0, older)},
			want:          map[string]int32{"foo-v2": 2, "foo-v1": 0, "foo-v0": 0},
			wantUntouched: []string{"foo-v2", "foo-v0"},
		},
		{
			name: "single active replica set already sized: nothing written", replicas: 3, oldReplicas: 1,
			newRS:         &scaleRS{hash: "v2", size: 3},
			oldRSs:        []scaleRS{rs("v1", 0, old)},
			want:          map[string]int32{"foo-v2": 3, "foo-v1": 0},
			wantUntouched: []string{"foo-v2", "foo-v1"},
		},
		{
			name: "nothing active: the newest old replica set takes it all", replicas: 3, oldReplicas: 0,
			oldRSs:        []scaleRS{rs("v1", 0, older), rs("v2", 0, old)},
			want:          map[string]int32{"foo-v2": 3, "foo-v1": 0},
			wantUntouched: []string{"foo-v1"},
		},
		{
			name: "recreate with several active replica sets waits", replicas: 6, oldReplicas: 4, recreate: true,
			newRS:         &scaleRS{hash: "v2", size: 2},
			oldRSs:        []scaleRS{rs("v1", 2, old)},
			want:          map[string]int32{"foo-v2": 2, "foo-v1": 2},
			wantUntouched: []string{"foo-v2", "foo-v1"},
		},
		{
			name: "no max-replicas annotation: falls back on status.replicas", replicas: 8, oldReplicas: 4,
			noAnnotation: true, statusReplicas: 4,
			newRS:  &scaleRS{hash: "v2", size: 2},
			oldRSs: []scaleRS{rs("v1", 2, old)},
			want:   map[string]int32{"foo-v2": 4, "foo-v1": 4},
		},
		{
			name: "no max-replicas annotation and status.replicas 0: leftover to the largest", replicas: 8, oldReplicas: 4,
			noAnnotation: true,
			newRS:        &scaleRS{hash: "v2", size: 3},
			oldRSs:       []scaleRS{rs("v1", 1, old)},
			want:         map[string]int32{"foo-v2": 7, "foo-v1": 1},
		},
		{
			name: "equal sizes and no change: annotations written anyway", replicas: 4, oldReplicas: 2,
			newRS:  &scaleRS{hash: "v2", size: 2},
			oldRSs: []scaleRS{rs("v1", 2, old)},
			// 4 = 2 + 2: nothing to add, but both get desired-replicas=4.
			want: map[string]int32{"foo-v2": 2, "foo-v1": 2},
		},
		{
			name: "huge sizes do not panic", replicas: math.MaxInt32, surge: 0, oldReplicas: 3,
			newRS:  &scaleRS{hash: "v2", size: math.MaxInt32 - 10},
			oldRSs: []scaleRS{rs("v1", 2, old)},
			want:   nil, // only "no panic, no error" is asserted
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { runScaleCase(t, tt) })
	}
}

func runScaleCase(t *testing.T, tt scaleCase) {
	g := newSyncRig(t)
	build := func(replicas, surge int32) *appsv1.Deployment {
		d := newDeployment("foo", replicas)
		withRolling(d, intOrStr(int(surge)), intOrStr(0))
		if tt.recreate {
			withRecreate(d)
		}
		return d
	}
	d := build(tt.replicas, tt.surge)
	d.Status.Replicas = tt.statusReplicas
	before := build(tt.oldReplicas, tt.oldSurge)

	make1 := func(s scaleRS) *appsv1.ReplicaSet {
		rs := newReplicaSet(d, s.hash, s.size, -s.age)
		rs.Status.AvailableReplicas = s.available
		desired := tt.oldReplicas
		if v, ok := tt.desiredOverride[rs.Name]; ok {
			desired = v
		}
		if !tt.noAnnotation {
			setReplicasAnnotations(rs, desired, desired+maxSurge(before))
		}
		return rs
	}
	var newRS *appsv1.ReplicaSet
	sizes := map[string]int32{}
	if tt.newRS != nil {
		newRS = make1(*tt.newRS)
		sizes[newRS.Name] = tt.newRS.size
	}
	var oldRSs []*appsv1.ReplicaSet
	for _, s := range tt.oldRSs {
		rs := make1(s)
		oldRSs = append(oldRSs, rs)
		sizes[rs.Name] = s.size
	}
	for _, rs := range append(oldRSs, newRS) {
		if rs != nil {
			g.addServed(rs)
		}
	}

	if err := g.r.scale(g.ctx(), d, newRS, oldRSs); err != nil {
		t.Fatalf("scale: %v", err)
	}
	if tt.want == nil {
		return
	}
	updated := g.sizes()
	for name, size := range updated {
		sizes[name] = size
	}
	for name, want := range tt.want {
		if sizes[name] != want {
			t.Errorf("%s: size %d, want %d (all: %v)", name, sizes[name], want, sizes)
		}
	}
	for _, name := range tt.wantUntouched {
		if _, ok := updated[name]; ok {
			t.Errorf("%s was written; want no write", name)
		}
	}
	// Every write records the Deployment's size in the annotations.
	for _, rs := range g.updatedReplicaSets() {
		if v, _ := desiredReplicasAnnotation(rs); v != tt.replicas {
			t.Errorf("%s: desired-replicas %d, want %d", rs.Name, v, tt.replicas)
		}
		if v, _ := maxReplicasAnnotation(rs); v != tt.replicas+maxSurge(d) {
			t.Errorf("%s: max-replicas %d, want %d", rs.Name, v, tt.replicas+maxSurge(d))
		}
	}
}

func TestScaleReplicaSetEvents(t *testing.T) {
	tests := []struct {
		name       string
		from, to   int32
		force      bool
		annotated  bool
		wantWrite  bool
		wantScaled bool
		wantEvents []string
	}{
		{name: "up", from: 1, to: 3, wantWrite: true, wantScaled: true,
			wantEvents: []string{"Normal ScalingReplicaSet Scaled up replica set foo-v1 from 1 to 3"}},
		{name: "down", from: 3, to: 0, wantWrite: true, wantScaled: true,
			wantEvents: []string{"Normal ScalingReplicaSet Scaled down replica set foo-v1 from 3 to 0"}},
		{name: "same size, stale annotations, not forced: nothing", from: 2, to: 2},
		{name: "same size, stale annotations, forced: annotations only", from: 2, to: 2, force: true, wantWrite: true},
		{name: "same size, fresh annotations, forced: nothing", from: 2, to: 2, force: true, annotated: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 2)
			rs := newReplicaSet(d, "v1", tt.from, 0)
			if tt.annotated {
				setReplicasAnnotations(rs, 2, 2+maxSurge(d))
			}
			g.addServed(rs)
			scaled, got, err := g.r.scaleReplicaSet(g.ctx(), rs, tt.to, d, tt.force)
			if err != nil {
				t.Fatal(err)
			}
			if scaled != tt.wantScaled {
				t.Errorf("scaled = %v, want %v", scaled, tt.wantScaled)
			}
			if *got.Spec.Replicas != tt.to {
				t.Errorf("returned size %d, want %d", *got.Spec.Replicas, tt.to)
			}
			if wrote := len(g.writes()) > 0; wrote != tt.wantWrite {
				t.Errorf("wrote = %v (%q), want %v", wrote, g.writes(), tt.wantWrite)
			}
			assertEvents(t, g.events(), tt.wantEvents...)
			if *rs.Spec.Replicas != tt.from {
				t.Error("the input ReplicaSet was modified")
			}
		})
	}
}

// A scaling event is an active ReplicaSet whose desired-replicas annotation
// differs from spec.replicas; missing or unparsable annotations and inactive
// ReplicaSets do not count.
func TestIsScalingEvent(t *testing.T) {
	tests := []struct {
		name    string
		desired string
		size    int32
		want    bool
	}{
		{"annotation matches", "3", 2, false},
		{"annotation differs", "5", 2, true},
		{"annotation differs on an inactive replica set", "5", 0, false},
		{"no annotation", "", 2, false},
		{"unparsable annotation", "lots", 2, false},
		{"negative annotation", "-3", 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 3)
			old := newReplicaSet(d, "v1", tt.size, -time.Hour)
			withTemplateImage(d, "registry.example/app:v2")
			if tt.desired != "" {
				old.Annotations = map[string]string{DesiredReplicasAnnotation: tt.desired}
			}
			got, err := g.r.isScalingEvent(g.ctx(), d, []*appsv1.ReplicaSet{old})
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("isScalingEvent = %v, want %v", got, tt.want)
			}
		})
	}
}

// A paused Deployment cleans up its history after scaling; one with a
// rollback pending does not.
func TestSyncPausedCleansUpHistory(t *testing.T) {
	for _, rollback := range []bool{false, true} {
		g := newSyncRig(t)
		d := newDeployment("foo", 2)
		d.Spec.Paused = true
		d.Spec.RevisionHistoryLimit = ptr.To[int32](0)
		old := withStatus(withRevision(newReplicaSet(d, "v1", 0, -time.Hour), "1"), 0, 0, 0)
		withTemplateImage(d, "registry.example/app:v2")
		if rollback {
			d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "1"}
		}
		g.add(d, old)
		if err := g.r.sync(g.ctx(), d, []*appsv1.ReplicaSet{old}); err != nil {
			t.Fatal(err)
		}
		deleted := false
		for _, w := range g.writes() {
			if w == "delete replicasets foo-v1" {
				deleted = true
			}
		}
		if deleted == rollback {
			t.Errorf("rollback pending=%v: deleted=%v (%q)", rollback, deleted, g.writes())
		}
	}
}

// A failed ReplicaSet write ends the pass with its error: nothing after it
// (history, status) is written, and the key is retried.
func TestWriteFailuresEndThePass(t *testing.T) {
	conflict := apierrors.NewConflict(appsv1.Resource("replicasets"), "x", errors.New("stale"))
	tests := []struct {
		name string
		edit func(d *appsv1.Deployment)
	}{
		{"paused sync", func(d *appsv1.Deployment) { d.Spec.Paused = true; d.Spec.ProgressDeadlineSeconds = nil }},
		{"scaling event", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](6) }},
		{"recreate", func(d *appsv1.Deployment) { withRecreate(d) }},
		{"deleting", func(d *appsv1.Deployment) { d.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch)) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 3)
			old := withStatus(withRevision(newReplicaSet(d, "v1", 3, -time.Hour), "1"), 3, 3, 3)
			setReplicasAnnotations(old, 3, 4)
			withTemplateImage(d, "registry.example/app:v2")
			cur := withRevision(newReplicaSet(d, "v2", 1, 0), "1") // stale revision: needs an update
			setReplicasAnnotations(cur, 3, 4)
			tt.edit(d)
			g.add(d, old, cur)
			g.failOn("update", "replicasets", conflict)

			_, err := g.reconcile(d)
			if !errors.Is(err, conflict) {
				t.Fatalf("Reconcile error = %v, want the conflict", err)
			}
			for _, w := range g.writes() {
				if strings.HasPrefix(w, "update deployments") || strings.HasPrefix(w, "delete") {
					t.Errorf("write %q after the failure", w)
				}
			}
		})
	}
}

// A desired-replicas annotation beyond an int32 is cut to one, as upstream
// cuts it: "4294967300" (2^32+4) on a new ReplicaSet of 4 out of 4 makes it
// saturated, so the old ReplicaSets go to 0 instead of the new one growing.
// The world is the one issue 18 reports.
func TestScaleDesiredAnnotationBeyondInt32(t *testing.T) {
	const wrapsToFour = "4294967300"
	tests := []struct {
		name      string
		configure func(d *appsv1.Deployment)
		oldSizes  []int32
	}{
		{"paused rolling update", func(d *appsv1.Deployment) {
			withRolling(d, intOrStr("99%"), intOrStr("25%"))
		}, []int32{3}},
		{"paused recreate", func(d *appsv1.Deployment) { withRecreate(d) }, []int32{3, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 4)
			d.Spec.Paused = true
			d.Spec.ProgressDeadlineSeconds = nil
			tt.configure(d)
			var objs []runtime.Object
			want := map[string]int32{}
			var wantEvents []string
			for i, size := range tt.oldSizes {
				old := withTemplateImage(d.DeepCopy(), fmt.Sprintf("registry.example/app:v0.%d", i))
				rs := withStatus(withRevision(newReplicaSet(old, fmt.Sprintf("old%d", i), size, -time.Duration(i+1)*time.Hour), fmt.Sprint(i+1)), size, size, size)
				setReplicasAnnotations(rs, 4, 4+maxSurge(d))
				objs = append(objs, rs)
				want[rs.Name] = 0
				wantEvents = append(wantEvents, fmt.Sprintf("Normal ScalingReplicaSet Scaled down replica set %s from %d to 0", rs.Name, size))
			}
			cur := withStatus(withRevision(newReplicaSet(d, "new", 4, 0), "9"), 4, 4, 4)
			setReplicasAnnotations(cur, 4, 4+maxSurge(d))
			cur.Annotations[DesiredReplicasAnnotation] = wrapsToFour
			g.add(append(objs, d, cur)...)

			g.mustReconcile(d)
			if diff := cmp.Diff(want, g.sizes()); diff != "" {
				t.Errorf("sizes written (-want +got):\n%s", diff)
			}
			slices.Sort(wantEvents)
			got := g.events()
			slices.Sort(got)
			assertEvents(t, got, wantEvents...)
		})
	}
}
