package typed_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// A client for a custom resource from its Go type alone. The server here
// answers one request; in a program, config comes from the kubeconfig.
func ExampleNewClient() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"apiVersion":"example.ctrlkit.dev/v1","kind":"Widget",
			"metadata":{"namespace":"shop","name":"a","resourceVersion":"7"},"spec":{"color":"red"}}`)
	}))
	defer srv.Close()

	widgets := typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	client, err := typed.NewClient[*Widget](&rest.Config{Host: srv.URL}, widgets)
	if err != nil {
		fmt.Println(err)
		return
	}
	w, err := client.Namespace("shop").Get(context.Background(), "a", metav1.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Name, w.Spec.Color, w.ResourceVersion)
	// Output:
	// GET /apis/example.ctrlkit.dev/v1/namespaces/shop/widgets/a
	// a red 7
}

// Server-side apply: the request is an apply patch of the apply
// configuration, the fields it sets and no others, owned by the field
// manager. A real program builds the configuration with the constructor
// and With methods applyconfiguration-gen writes (see
// examples/crd-operator/applyconfiguration).
func ExampleClient_Apply() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.URL.Query().Get("fieldManager"))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"metadata":{"namespace":"shop","name":"a","resourceVersion":"8"},"spec":{"color":"blue"}}`)
	}))
	defer srv.Close()

	widgets := typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	client, err := typed.NewClient[*Widget](&rest.Config{Host: srv.URL}, widgets)
	if err != nil {
		fmt.Println(err)
		return
	}
	desired := applyWidget("shop", "a")
	desired.Spec = &WidgetSpecApplyConfiguration{Color: ptr.To("blue")}
	applied, err := client.Namespace("shop").Apply(context.Background(), desired,
		metav1.ApplyOptions{FieldManager: "widget-controller", Force: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Join([]string{applied.Name, applied.Spec.Color, applied.ResourceVersion}, " "))
	// Output:
	// PATCH /apis/example.ctrlkit.dev/v1/namespaces/shop/widgets/a application/apply-patch+yaml widget-controller
	// a blue 8
}

// An index of widgets by colour, and a lookup in one namespace, in order.
// A controller adds its indexes before the factory starts; here the store
// is filled by hand.
func ExampleInformer_IndexField() {
	widgets := typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}
	client, err := typed.NewClient[*Widget](&rest.Config{Host: "http://127.0.0.1:1"}, widgets)
	if err != nil {
		fmt.Println(err)
		return
	}
	informer := typed.NewInformer(client, typed.InformerOptions{})
	if err := informer.IndexField("color", func(w *Widget) []string { return []string{w.Spec.Color} }); err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range []*Widget{widget("shop", "b", "red"), widget("shop", "a", "red"), widget("depot", "c", "red")} {
		_ = informer.Informer().GetIndexer().Add(w)
	}

	red, err := informer.MatchingField("shop", "color", "red")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range red {
		fmt.Println(w.Namespace, w.Name)
	}
	// Output:
	// shop a
	// shop b
}
