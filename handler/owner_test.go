package handler_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
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
	h := handler.ForControllerOf(deploymentKind, meta.RESTScopeNamespace, handler.IndexerLookup(store), handler.ObjectKey)

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
	handler.ForControllerOf(deploymentKind, meta.RESTScopeNamespace, nil, handler.ObjectKey).EventHandler(q).OnAdd(rs, false)
	if got := q.take(); len(got) != 0 {
		t.Errorf("a non-controller owner reference enqueued %v", got)
	}
}

func TestForControllerOfUpdateWakesOldAndNewOwner(t *testing.T) {
	store := deploymentStore(t, deployment("ns", "web", "uid-web"), deployment("ns", "api", "uid-api"))
	q := &recordingQueue[string]{}
	h := handler.ForControllerOf(deploymentKind, meta.RESTScopeNamespace, handler.IndexerLookup(store), handler.ObjectKey).EventHandler(q)
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
	h := handler.ForControllerOf(deploymentKind, meta.RESTScopeNamespace, handler.IndexerLookup(store), handler.ObjectKey).EventHandler(q)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/rs", Obj: ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "1")})
	want := []add[string]{{normal, []string{"ns/web"}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

func TestForControllerOfWithoutLookupTrustsTheReference(t *testing.T) {
	q := &recordingQueue[string]{}
	var seen metav1.Object
	h := handler.ForControllerOf(deploymentKind, meta.RESTScopeNamespace, nil, func(o metav1.Object) string {
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

var nodeKind = schema.GroupKind{Kind: "Node"}

// mirrorPod is the mirror Pod of a static pod on node: the Node, a
// cluster-scoped object, is its controller.
func mirrorPod(node *corev1.Node) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-" + node.Name,
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(node, corev1.SchemeGroupVersion.WithKind("Node"))}}}
}

func TestForControllerOfClusterScopedOwner(t *testing.T) {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "uid-n1"}}
	stale := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "uid-old"}}
	nodes := deploymentStore(t, node)
	q := &recordingQueue[string]{}
	h := handler.ForControllerOf(nodeKind, meta.RESTScopeRoot, handler.IndexerLookup(nodes), handler.ObjectKey).EventHandler(q)
	h.OnAdd(mirrorPod(node), false)
	h.OnAdd(mirrorPod(stale), false) // a leftover of an older n1: ignored
	want := []add[string]{{normal, []string{"n1"}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

// TestForControllerOfLookupSeesTheOwnersNamespace: a lookup is asked for a
// namespaced owner in the dependent's namespace and for a cluster-scoped
// one with no namespace.
func TestForControllerOfLookupSeesTheOwnersNamespace(t *testing.T) {
	for _, tc := range []struct {
		scope meta.RESTScope
		kind  schema.GroupKind
		obj   metav1.Object
		want  string
	}{
		{meta.RESTScopeNamespace, deploymentKind, ownedBy("ns", "rs", "apps/v1", "Deployment", "web", "uid-web", "1"), "ns"},
		{meta.RESTScopeRoot, nodeKind, mirrorPod(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}), ""},
	} {
		asked := []string{}
		lookup := func(namespace, name string) (metav1.Object, error) {
			asked = append(asked, namespace)
			return nil, fmt.Errorf("%s not found", name)
		}
		handler.ForControllerOf(tc.kind, tc.scope, lookup, handler.ObjectKey).EventHandler(&recordingQueue[string]{}).OnAdd(tc.obj, false)
		if diff := cmp.Diff([]string{tc.want}, asked); diff != "" {
			t.Errorf("%s owner: namespaces asked (-want +got):\n%s", tc.scope.Name(), diff)
		}
	}
}

func TestForControllerOfClusterScopedWithoutLookup(t *testing.T) {
	q := &recordingQueue[string]{}
	handler.ForControllerOf(nodeKind, meta.RESTScopeRoot, nil, handler.ObjectKey).EventHandler(q).
		OnAdd(mirrorPod(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", UID: "uid-n1"}}), false)
	want := []add[string]{{normal, []string{"n1"}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

func TestForControllerOfNeedsAScope(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("ForControllerOf with a nil scope did not panic")
		}
	}()
	handler.ForControllerOf(deploymentKind, nil, nil, handler.ObjectKey)
}
