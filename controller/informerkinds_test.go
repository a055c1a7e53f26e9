package controller_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/handler"
)

var widgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

func TestWatchDynamicAndMetadataInformers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		scheme := runtime.NewScheme()
		if err := metav1.AddMetaToScheme(scheme); err != nil {
			t.Fatal(err)
		}
		widget := &unstructured.Unstructured{}
		widget.SetAPIVersion("example.com/v1")
		widget.SetKind("Widget")
		widget.SetNamespace("ns")
		widget.SetName("dynamic")
		dynamicClient := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme,
			map[schema.GroupVersionResource]string{widgets: "WidgetList"}, widget)
		dynamicFactory := dynamicinformer.NewDynamicSharedInformerFactory(dynamicClient, 0)

		metadataClient := metadatafake.NewSimpleMetadataClient(scheme, &metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "metadata-only"},
		})
		metadataInformer := handler.MetadataInformer(metadataClient, widgets, "", 0)

		env := controllertest.New(t)
		r := &controllertest.Recorder[types.NamespacedName]{}
		c, err := controller.New("widgets", controller.Reconciler[types.NamespacedName](r), controller.Options[types.NamespacedName]{})
		if err != nil {
			t.Fatal(err)
		}
		keys := handler.ForObject(handler.ObjectNamespacedName)
		if err := c.Watch(dynamicFactory.ForResource(widgets).Informer(), keys); err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(metadataInformer, keys); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		dynamicFactory.Start(ctx.Done())
		informerDone := make(chan struct{})
		go func() {
			metadataInformer.RunWithContext(ctx)
			close(informerDone)
		}()
		defer func() {
			cancel()
			dynamicFactory.Shutdown()
			<-informerDone
		}()
		env.Start(c)

		got := r.Keys()
		slices.SortFunc(got, func(a, b types.NamespacedName) int { return strings.Compare(a.Name, b.Name) })
		want := []types.NamespacedName{{Namespace: "ns", Name: "dynamic"}, {Namespace: "ns", Name: "metadata-only"}}
		if !slices.Equal(got, want) {
			t.Fatalf("reconciled %v, want %v", got, want)
		}
	})
}
