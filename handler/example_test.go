package handler_test

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// printQueue prints what a handler adds.
type printQueue struct{}

func (printQueue) AddWithOpts(o workqueue.AddOpts, keys ...string) {
	prio := "normal"
	if o.Priority == workqueue.PriorityLow {
		prio = "low"
	}
	fmt.Println("add", keys, "priority", prio)
}

// The object itself, keyed "namespace/name". Events from the informer's
// initial list and resyncs come at low priority.
func ExampleForObject() {
	h := handler.ForObject(handler.ObjectKey).EventHandler(printQueue{})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings", ResourceVersion: "7"}}
	h.OnAdd(cm, true)  // from the initial list
	h.OnUpdate(cm, cm) // a resync: same resourceVersion
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "default/settings", Obj: cm})
	// Output:
	// add [default/settings] priority low
	// add [default/settings] priority low
	// add [default/settings] priority normal
}

// A ReplicaSet event wakes the Deployment controlling it, if that
// Deployment still exists with the UID the reference names.
func ExampleForControllerOf() {
	deployments := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = deployments.Add(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "1234"}})

	h := handler.ForControllerOf(schema.GroupKind{Group: "apps", Kind: "Deployment"}, meta.RESTScopeNamespace,
		handler.IndexerLookup(deployments), handler.ObjectKey).EventHandler(printQueue{})

	rs := func(uid string) *appsv1.ReplicaSet {
		return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-abc",
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(
				&metav1.ObjectMeta{Name: "web", UID: k8stypes.UID(uid)}, appsv1.SchemeGroupVersion.WithKind("Deployment"))}}}
	}
	h.OnAdd(rs("1234"), false)
	h.OnAdd(rs("5678"), false) // a leftover of an older "web": ignored
	// Output:
	// add [default/web] priority normal
}

// A cluster-scoped owner: a static pod's mirror Pod is controlled by its
// Node, which has no namespace. meta.RESTScopeRoot makes the lookup ask for
// the Node by name alone.
func ExampleForControllerOf_clusterScoped() {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "42"}}
	nodes := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = nodes.Add(node)

	h := handler.ForControllerOf(schema.GroupKind{Kind: "Node"}, meta.RESTScopeRoot,
		handler.IndexerLookup(nodes), handler.ObjectKey).EventHandler(printQueue{})

	h.OnAdd(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "etcd-node-1",
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(node, corev1.SchemeGroupVersion.WithKind("Node"))}}}, false)
	// Output:
	// add [node-1] priority normal
}

// Predicates narrow a handler: here, only Pods labelled app=web, and only
// updates that changed their labels.
func ExampleHandler_WithPredicates() {
	h := handler.ForObject(handler.ObjectKey).WithPredicates(
		handler.LabelSelector(labels.SelectorFromSet(labels.Set{"app": "web"})),
		handler.Or(handler.OnlyEventTypes(handler.Create, handler.Delete), handler.LabelsChanged()),
	).EventHandler(printQueue{})

	pod := func(rv string, l map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0", ResourceVersion: rv, Labels: l}}
	}
	web := map[string]string{"app": "web"}
	h.OnAdd(pod("1", web), false)
	h.OnUpdate(pod("1", web), pod("2", web))                                       // status only: filtered
	h.OnUpdate(pod("2", web), pod("3", map[string]string{"app": "web", "v": "2"})) // labels changed
	h.OnAdd(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-0"}}, false)
	// Output:
	// add [default/web-0] priority normal
	// add [default/web-0] priority normal
}

// Map any object to any keys: here, a Secret to the ConfigMaps of the same
// name prefix (made up for the example).
func ExampleMap() {
	h := handler.Map(func(obj metav1.Object) []string {
		return []string{obj.GetNamespace() + "/" + obj.GetName() + "-config"}
	}).EventHandler(printQueue{})
	h.OnAdd(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db"}}, false)
	// Output:
	// add [default/db-config] priority normal
}
