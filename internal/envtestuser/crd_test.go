package envtestuser

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"
)

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// The CRD of testdata/crds is served as soon as the environment is up: a
// Widget can be created, and an informer sees it and its status update.
func TestCustomObjectThroughInformer(t *testing.T) {
	ns := env.Namespace(t)
	client, err := dynamic.NewForConfig(env.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(client, 0, ns, nil)
	seen := make(chan *unstructured.Unstructured, 10)
	send := func(obj any) { seen <- obj.(*unstructured.Unstructured) }
	if _, err := factory.ForResource(widgets).Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    send,
		UpdateFunc: func(_, obj any) { send(obj) },
	}); err != nil {
		t.Fatal(err)
	}
	factory.Start(t.Context().Done())
	t.Cleanup(factory.Shutdown)
	factory.WaitForCacheSync(t.Context().Done())

	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "w"},
		"spec":       map[string]any{"size": int64(3)},
	}}
	created, err := client.Resource(widgets).Namespace(ns).Create(t.Context(), w, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := next(t, seen)
	if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); got.GetName() != "w" || size != 3 {
		t.Errorf("informer saw %s with size %d, want w with size 3", got.GetName(), size)
	}

	// The status subresource of the CRD works, and the update is watched.
	if err := unstructured.SetNestedField(created.Object, true, "status", "ready"); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Resource(widgets).Namespace(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got = next(t, seen)
	if ready, _, _ := unstructured.NestedBool(got.Object, "status", "ready"); !ready {
		t.Errorf("informer saw status %v, want ready", got.Object["status"])
	}
}

// next returns the next object the informer delivers.
func next(t *testing.T, seen <-chan *unstructured.Unstructured) *unstructured.Unstructured {
	t.Helper()
	select {
	case obj := <-seen:
		return obj
	case <-time.After(30 * time.Second):
		t.Fatal("the informer delivered nothing in 30s")
		return nil
	}
}
