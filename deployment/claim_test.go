package deployment

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// orphan returns rs without owner references.
func orphan(rs *appsv1.ReplicaSet) *appsv1.ReplicaSet {
	rs.OwnerReferences = nil
	return rs
}

func names(rss []*appsv1.ReplicaSet) []string {
	var out []string
	for _, rs := range rss {
		out = append(out, rs.Name)
	}
	slices.Sort(out)
	return out
}

// patches returns the patch bodies sent, by ReplicaSet name.
func (g *syncRig) patches() map[string]string {
	out := map[string]string{}
	for _, a := range g.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok {
			if p.GetPatchType() != types.StrategicMergePatchType {
				g.t.Errorf("patch type %s, want strategic merge", p.GetPatchType())
			}
			out[p.GetName()] = string(p.GetPatch())
		}
	}
	return out
}

// Upstream: TestGetReplicaSetsForDeployment.
func TestClaimOnlyOwnReplicaSets(t *testing.T) {
	g := newSyncRig(t)
	foo := newDeployment("foo", 1)
	bar := newDeployment("bar", 1)
	bar.Spec.Selector = foo.Spec.Selector.DeepCopy() // same labels
	bar.Spec.Template.Labels = foo.Spec.Template.Labels
	fooRS := newReplicaSet(foo, "a", 1, 0)
	barRS := newReplicaSet(bar, "b", 1, 0)
	g.add(foo, bar, fooRS, barRS)

	for _, tc := range []struct {
		d    *appsv1.Deployment
		want string
	}{{foo, "foo-a"}, {bar, "bar-b"}} {
		got, err := g.r.claimReplicaSets(g.ctx(), tc.d)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(names(got), []string{tc.want}) {
			t.Errorf("%s claims %v, want [%s]", tc.d.Name, names(got), tc.want)
		}
	}
	assertWrites(t, g.writes())
}

// Upstream: TestGetReplicaSetsForDeploymentAdoptRelease.
func TestClaimAdoptsAndReleases(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	adoptee := orphan(newReplicaSet(d, "adopt", 1, 0))
	released := newReplicaSet(d, "release", 1, 0)
	released.Labels = map[string]string{"app": "other"}
	otherOwner := newReplicaSet(d, "other", 1, 0)
	otherOwner.OwnerReferences[0].UID = "someone-else"
	dying := orphan(newReplicaSet(d, "dying", 1, 0))
	dying.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
	unmatched := orphan(newReplicaSet(d, "unmatched", 1, 0))
	unmatched.Labels = map[string]string{"app": "other"}
	g.add(d, adoptee, released, otherOwner, dying, unmatched)

	got, err := g.r.claimReplicaSets(g.ctx(), d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(got), []string{"foo-adopt"}) {
		t.Errorf("claimed %v, want [foo-adopt]", names(got))
	}
	// One live read of the Deployment, before adopting.
	var gets []string
	for _, a := range g.client.Actions() {
		if a.GetVerb() == "get" {
			gets = append(gets, a.GetResource().Resource+" "+actionName(a))
		}
	}
	if !slices.Equal(gets, []string{"deployments foo"}) {
		t.Errorf("live reads %q, want one of the Deployment", gets)
	}

	patches := g.patches()
	if len(patches) != 2 {
		t.Fatalf("patches %v, want adopt and release", patches)
	}
	var adopt struct {
		Metadata struct {
			UID             types.UID               `json:"uid"`
			OwnerReferences []metav1.OwnerReference `json:"ownerReferences"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal([]byte(patches["foo-adopt"]), &adopt); err != nil {
		t.Fatal(err)
	}
	if adopt.Metadata.UID != adoptee.UID {
		t.Errorf("adopt patch guarded by uid %q, want %q", adopt.Metadata.UID, adoptee.UID)
	}
	want := metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "foo", UID: d.UID,
		Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}
	if len(adopt.Metadata.OwnerReferences) != 1 || !equalOwnerRef(adopt.Metadata.OwnerReferences[0], want) {
		t.Errorf("adopt patch owner refs %+v, want [%+v]", adopt.Metadata.OwnerReferences, want)
	}
	wantRelease := `{"metadata":{"uid":"` + string(released.UID) + `","ownerReferences":[{"$patch":"delete","uid":"` + string(d.UID) + `"}]}}`
	if patches["foo-release"] != wantRelease {
		t.Errorf("release patch %s, want %s", patches["foo-release"], wantRelease)
	}

	// The API server (fake) applied both.
	if ref := metav1.GetControllerOf(g.servedReplicaSet("foo-adopt")); ref == nil || ref.UID != d.UID {
		t.Errorf("served foo-adopt controller %+v, want foo", ref)
	}
	if refs := g.servedReplicaSet("foo-release").OwnerReferences; len(refs) != 0 {
		t.Errorf("served foo-release owner refs %+v, want none", refs)
	}
}

func equalOwnerRef(a, b metav1.OwnerReference) bool {
	return a.APIVersion == b.APIVersion && a.Kind == b.Kind && a.Name == b.Name && a.UID == b.UID &&
		ptr.Deref(a.Controller, false) == ptr.Deref(b.Controller, false) &&
		ptr.Deref(a.BlockOwnerDeletion, false) == ptr.Deref(b.BlockOwnerDeletion, false)
}

// Upstream: TestSyncDeploymentDeletionRace. The cache says the Deployment
// lives, the API server says it is being deleted: no adoption, an error so
// the key is retried once the cache catches up.
func TestClaimDeletionRace(t *testing.T) {
	tests := []struct {
		name    string
		live    func(d *appsv1.Deployment) *appsv1.Deployment
		wantErr string
	}{
		{"deleted meanwhile", func(d *appsv1.Deployment) *appsv1.Deployment {
			d.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
			d.Finalizers = []string{"foregroundDeletion"}
			return d
		}, "has just been deleted"},
		{"re-created meanwhile", func(d *appsv1.Deployment) *appsv1.Deployment {
			d.UID = "a-new-uid"
			return d
		}, "is gone: got uid a-new-uid"},
		{"gone", nil, "can't recheck DeletionTimestamp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 1)
			g.addCached(d)
			if tt.live != nil {
				g.addServed(tt.live(d.DeepCopy()))
			}
			rs := orphan(newReplicaSet(d, "abc", 1, 0))
			g.add(rs)

			_, err := g.reconcile(d)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "can't adopt ReplicaSet") {
				t.Fatalf("Reconcile error = %v; want a refused adoption (%s)", err, tt.wantErr)
			}
			assertWrites(t, g.writes())
			if len(g.servedReplicaSet("foo-abc").OwnerReferences) != 0 {
				t.Error("the orphan was adopted")
			}
		})
	}
}

// A Deployment being deleted neither adopts nor releases, and keeps the
// matching ReplicaSets it owns.
func TestClaimWhileDeploymentDeleted(t *testing.T) {
	g := newSyncRig(t)
	d := newDeployment("foo", 1)
	d.DeletionTimestamp = ptr.To(metav1.NewTime(testEpoch))
	owned := newReplicaSet(d, "owned", 1, 0)
	mismatched := newReplicaSet(d, "mismatched", 1, 0)
	mismatched.Labels = map[string]string{"app": "other"}
	orphaned := orphan(newReplicaSet(d, "orphan", 1, 0))
	g.add(d, owned, mismatched, orphaned)

	got, err := g.r.claimReplicaSets(g.ctx(), d)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(got), []string{"foo-owned"}) {
		t.Errorf("claimed %v, want [foo-owned]", names(got))
	}
	if len(g.client.Actions()) != 0 {
		t.Errorf("actions %v, want none", g.client.Actions())
	}
}

// Release failures: NotFound and Invalid mean there is nothing to release;
// anything else fails the pass, after every ReplicaSet was tried.
func TestClaimReleaseErrors(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "replicasets"}
	tests := []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"not found", apierrors.NewNotFound(gr, "x"), false},
		{"invalid", apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, "x", field.ErrorList{field.Invalid(field.NewPath("metadata", "uid"), "x", "mismatch")}), false},
		{"conflict", apierrors.NewConflict(gr, "x", nil), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 1)
			a := newReplicaSet(d, "a", 1, 0)
			a.Labels = map[string]string{"app": "other"}
			b := newReplicaSet(d, "b", 1, 0)
			b.Labels = map[string]string{"app": "other"}
			g.add(d, a, b)
			g.failOn("patch", "replicasets", tt.err)

			got, err := g.r.claimReplicaSets(g.ctx(), d)
			if (err != nil) != tt.wantErr {
				t.Fatalf("claim error = %v, wantErr %v", err, tt.wantErr)
			}
			if len(got) != 0 {
				t.Errorf("claimed %v, want none", names(got))
			}
			if n := len(g.writes()); n != 2 {
				t.Errorf("%d patches, want 2 (every ReplicaSet tried)", n)
			}
		})
	}
}

// An adoption answered NotFound (the orphan vanished) is not an error; any
// other failure is, and the orphan is not claimed.
func TestClaimAdoptErrors(t *testing.T) {
	gr := schema.GroupResource{Group: "apps", Resource: "replicasets"}
	for _, tt := range []struct {
		name    string
		err     error
		wantErr bool
	}{
		{"not found", apierrors.NewNotFound(gr, "x"), false},
		{"owned by another controller meanwhile", apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}, "x", nil), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newSyncRig(t)
			d := newDeployment("foo", 1)
			g.add(d, orphan(newReplicaSet(d, "a", 1, 0)))
			g.failOn("patch", "replicasets", tt.err)
			got, err := g.r.claimReplicaSets(g.ctx(), d)
			if (err != nil) != tt.wantErr || len(got) != 0 {
				t.Fatalf("claim = %v, %v; want none, wantErr %v", names(got), err, tt.wantErr)
			}
		})
	}
}
