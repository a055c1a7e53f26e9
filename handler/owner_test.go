package handler_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/handler"
)

var deploymentKind = schema.GroupKind{Group: "apps", Kind: "Deployment"}

func deploymentStore(t *testing.T, objs ...metav1.Object) cache.Indexer {
	t.Helper()
	store := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, o := range objs {
		if err := store.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return store
}

func TestForControllerOf(t *testing.T) {
	store := deploymentStore(t, deployment("ns", "web", "uid-web"), deployment("ns", "api", "uid-api"))
	h := handler.ForControllerOf(deploymentKind, handler.IndexerLookup(store), handler.ObjectKey)

	for _, tc := range []struct {
		name string
		obj  metav1.Object
		want []string
	}{
		{"owner found", ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "1"), []string{"ns/web"}},
		{"stale UID", ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-old", "1"), nil},
		{"owner missing", ownedBy("ns", "rs", "apps/v1", "Deployment", "gone", "uid-gone", "1"), nil},
		{"other kind", ownedBy("ns", "rs", "apps/v1", "StatefulSet", "web", "uid-web", "1"), nil},
		{"other group", ownedBy("ns", "rs", "example.com/v1", "Deployment", "web", "uid-web", "1"), nil},
		{"bad apiVersion", ownedBy("ns", "rs", "a/b/c", "Deployment", "web", "uid-web", "1"), nil},
		{"other namespace", ownedBy("other", "rs", "apps/v1", "Deployment", "web", "uid-web", "1"), nil},
		{"no owner", pod("ns", "p", "1"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &recordingQueue[string]{}
			h.EventHandler(q).OnAdd(tc.obj, false)
			var got []string
			for _, a := range q.take() {
				got = append(got, a.keys...)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("keys (-want +got):\n%s", diff)
			}
		})
	}
}

func TestForControllerOfNotAController(t *testing.T) {
	rs := ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "1")
	no := false
	rs.OwnerReferences[0].Controller = &no
	q := &recordingQueue[string]{}
	handler.ForControllerOf(deploymentKind, nil, handler.ObjectKey).EventHandler(q).OnAdd(rs, false)
	if got := q.take(); len(got) != 0 {
		t.Errorf("a non-controller owner reference enqueued %v", got)
	}
}

func TestForControllerOfUpdateWakesOldAndNewOwner(t *testing.T) {
	store := deploymentStore(t, deployment("ns", "web", "uid-web"), deployment("ns", "api", "uid-api"))
	q := &recordingQueue[string]{}
	h := handler.ForControllerOf(deploymentKind, handler.IndexerLookup(store), handler.ObjectKey).EventHandler(q)
	h.OnUpdate(ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "1"),
		ownedBy("ns", "rs", "apps/v1", "Deployment", "api", "uid-api", "2"))
	h.OnUpdate(ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "2"),
		ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "3"))
	want := []add[string]{{normal, []string{"ns/api", "ns/web"}}, {normal, []string{"ns/web"}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

func TestForControllerOfTombstone(t *testing.T) {
	store := deploymentStore(t, deployment("ns", "web", "uid-web"))
	q := &recordingQueue[string]{}
	h := handler.ForControllerOf(deploymentKind, handler.IndexerLookup(store), handler.ObjectKey).EventHandler(q)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/rs", Obj: ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "1")})
	want := []add[string]{{normal, []string{"ns/web"}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

func TestForControllerOfWithoutLookupTrustsTheReference(t *testing.T) {
	q := &recordingQueue[string]{}
	var seen metav1.Object
	h := handler.ForControllerOf(deploymentKind, nil, func(o metav1.Object) string {
		seen = o
		return handler.ObjectKey(o)
	}).EventHandler(q)
	h.OnAdd(ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "1"), false)
	if got := q.take(); len(got) != 1 || got[0].keys[0] != "ns/web" {
		t.Fatalf("adds %v, want ns/web", got)
	}
	if seen.GetUID() != "uid-web" {
		t.Errorf("owner stub UID = %q, want the reference's", seen.GetUID())
	}
}
