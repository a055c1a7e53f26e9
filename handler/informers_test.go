package handler_test

import (
	"context"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/handler"
)

func TestStripManagedFields(t *testing.T) {
	p := pod("ns", "p", "1")
	p.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	got, err := handler.StripManagedFields(p)
	if err != nil || got.(*corev1.Pod).ManagedFields != nil {
		t.Errorf("StripManagedFields = %v, %v; want managedFields cleared", got, err)
	}

	p2 := pod("ns", "q", "1")
	p2.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}
	tomb, err := handler.StripManagedFields(cache.DeletedFinalStateUnknown{Key: "ns/q", Obj: p2})
	if err != nil || tomb.(cache.DeletedFinalStateUnknown).Obj.(*corev1.Pod).ManagedFields != nil {
		t.Errorf("tombstone: %v, %v; want managedFields cleared", tomb, err)
	}

	if got, err := handler.StripManagedFields("not an object"); err != nil || got != "not an object" {
		t.Errorf("non-object: %v, %v; want it unchanged", got, err)
	}
}

func TestMetadataInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scheme := runtime.NewScheme()
		if err := metav1.AddMetaToScheme(scheme); err != nil {
			t.Fatal(err)
		}
		gvr := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
		obj := &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
		}
		client := metadatafake.NewSimpleMetadataClient(scheme, obj)
		informer := handler.MetadataInformer(client, gvr, "", 0)

		q := &recordingQueue[string]{}
		if _, err := informer.AddEventHandler(handler.ForObject(handler.ObjectKey).EventHandler(q)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer func() { cancel(); synctest.Wait() }()
		go informer.RunWithContext(ctx)
		synctest.Wait()

		items, err := informer.GetIndexer().ByIndex(cache.NamespaceIndex, "ns")
		if err != nil || len(items) != 1 {
			t.Fatalf("namespace index: %v, %v; want the pod", items, err)
		}
		if mf := items[0].(*metav1.PartialObjectMetadata).ManagedFields; mf != nil {
			t.Errorf("cached object keeps managedFields %v", mf)
		}
		if got := q.take(); len(got) != 1 || got[0].keys[0] != "ns/p" || got[0].opts != low {
			t.Errorf("adds %v, want ns/p at low priority from the initial list", got)
		}
	})
}
