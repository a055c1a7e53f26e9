package typed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

const base = "/apis/example.ctrlkit.dev/v1"

func newWidgetClient(t *testing.T) (*typed.Client[*Widget], *fakeAPIServer) {
	t.Helper()
	srv := newFakeAPIServer(t, widgets.GroupVersion(), widgets.Resource, widgets.Kind)
	c, err := typed.NewClient[*Widget](srv.config(), widgets)
	if err != nil {
		t.Fatal(err)
	}
	return c, srv
}

func TestClientCRUD(t *testing.T) {
	c, srv := newWidgetClient(t)
	ctx := context.Background()
	ns := c.Namespace("shop")

	created, err := ns.Create(ctx, widget("shop", "a", "red"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.Color != "red" || created.UID == "" || created.ResourceVersion == "" {
		t.Errorf("Create returned %+v; want the stored object with uid and resourceVersion", created)
	}
	if _, err := ns.Create(ctx, widget("shop", "a", "blue"), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("second Create: %v, want AlreadyExists", err)
	}
	if _, err := c.Namespace("other").Create(ctx, widget("other", "b", "green"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	got, err := ns.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.Spec.Color != "red" {
		t.Errorf("Get = %+v, %v; want the red widget", got, err)
	}
	if _, err := ns.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get of a missing widget: %v, want NotFound", err)
	}

	all, err := c.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names := itemNames(all.Items); !cmp.Equal(names, []string{"other/b", "shop/a"}) {
		t.Errorf("List across namespaces = %v", names)
	}
	inShop, err := ns.List(ctx, metav1.ListOptions{LabelSelector: "tier=web"})
	if err != nil || !cmp.Equal(itemNames(inShop.Items), []string{"shop/a"}) {
		t.Errorf("List in shop = %v, %v", itemNames(inShop.Items), err)
	}

	stale := got.DeepCopyObject().(*Widget)
	got.Spec.Color = "blue"
	updated, err := ns.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil || updated.Spec.Color != "blue" {
		t.Fatalf("Update = %+v, %v", updated, err)
	}
	stale.Spec.Color = "yellow"
	if _, err := ns.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("Update from a stale copy: %v, want Conflict", err)
	}

	updated.Status.Ready = true
	updated.Spec.Color = "ignored by the status subresource"
	withStatus, err := ns.UpdateStatus(ctx, updated, metav1.UpdateOptions{})
	if err != nil || !withStatus.Status.Ready || withStatus.Spec.Color != "blue" {
		t.Errorf("UpdateStatus = %+v, %v; want status set, spec kept", withStatus, err)
	}

	patched, err := ns.Patch(ctx, "a", types.MergePatchType, []byte(`{"spec":{"size":3}}`), metav1.PatchOptions{})
	if err != nil || ptr.Deref(patched.Spec.Size, 0) != 3 || patched.Spec.Color != "blue" {
		t.Errorf("Patch = %+v, %v", patched, err)
	}

	if err := ns.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ns.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("Get after Delete: %v, want NotFound", err)
	}

	want := []string{
		"POST " + base + "/namespaces/shop/widgets",
		"POST " + base + "/namespaces/shop/widgets",
		"POST " + base + "/namespaces/other/widgets",
		"GET " + base + "/namespaces/shop/widgets/a",
		"GET " + base + "/namespaces/shop/widgets/missing",
		"GET " + base + "/widgets",
		"GET " + base + "/namespaces/shop/widgets?labelSelector=tier%3Dweb",
		"PUT " + base + "/namespaces/shop/widgets/a",
		"PUT " + base + "/namespaces/shop/widgets/a",
		"PUT " + base + "/namespaces/shop/widgets/a/status",
		"PATCH " + base + "/namespaces/shop/widgets/a",
		"DELETE " + base + "/namespaces/shop/widgets/a",
		"GET " + base + "/namespaces/shop/widgets/a",
	}
	if diff := cmp.Diff(want, requestLines(srv.takeRequests())); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestClientApply: Apply and ApplyStatus send the apply configuration as
// it is, an apply patch with fieldManager and force: only the fields it
// sets, so a zero value the caller set (ready: false) is sent and a field
// it left unset (size, which a whole Widget would send as 0 without
// omitempty) is not.
func TestClientApply(t *testing.T) {
	c, srv := newWidgetClient(t)
	ctx := context.Background()
	opts := metav1.ApplyOptions{FieldManager: "widget-controller", Force: true}

	desired := applyWidget("shop", "a")
	desired.Spec = &WidgetSpecApplyConfiguration{Color: ptr.To("red")}
	applied, err := c.Namespace("shop").Apply(ctx, desired, opts)
	if err != nil || applied.Spec.Color != "red" || applied.ResourceVersion == "" {
		t.Fatalf("Apply = %+v, %v", applied, err)
	}
	status := applyWidget("shop", "a")
	status.Status = &WidgetStatusApplyConfiguration{Ready: ptr.To(false)}
	if _, err := c.Namespace("shop").ApplyStatus(ctx, status, opts); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Namespace("shop").Apply(ctx, &WidgetApplyConfiguration{}, opts); err == nil || !strings.Contains(err.Error(), "Name") {
		t.Errorf("Apply without a name: %v, want an error naming the name", err)
	}
	if _, err := c.Namespace("shop").ApplyStatus(ctx, nil, opts); err == nil {
		t.Error("ApplyStatus of nil: no error")
	}

	reqs := srv.takeRequests()
	if len(reqs) != 2 {
		t.Fatalf("requests %v, want the two applies", requestLines(reqs))
	}
	wantBodies := []map[string]any{
		{"apiVersion": "example.ctrlkit.dev/v1", "kind": "Widget", "metadata": map[string]any{"name": "a", "namespace": "shop"},
			"spec": map[string]any{"color": "red"}},
		{"apiVersion": "example.ctrlkit.dev/v1", "kind": "Widget", "metadata": map[string]any{"name": "a", "namespace": "shop"},
			"status": map[string]any{"ready": false}},
	}
	for i, path := range []string{base + "/namespaces/shop/widgets/a", base + "/namespaces/shop/widgets/a/status"} {
		r := reqs[i]
		if r.Method != "PATCH" || r.Path != path || r.ContentType != "application/apply-patch+yaml" {
			t.Errorf("apply #%d: %s %s (%s), want PATCH %s as application/apply-patch+yaml", i, r.Method, r.Path, r.ContentType, path)
		}
		if r.Query["fieldManager"][0] != "widget-controller" || r.Query["force"][0] != "true" {
			t.Errorf("apply #%d: query %v, want fieldManager and force", i, r.Query)
		}
		if diff := cmp.Diff(wantBodies[i], r.Body); diff != "" {
			t.Errorf("apply #%d: body (-want +got):\n%s", i, diff)
		}
	}
}

func TestClientWatch(t *testing.T) {
	c, _ := newWidgetClient(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := c.Namespace("shop").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := c.Namespace("shop").Create(ctx, widget("shop", "a", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e := <-w.ResultChan()
	if got, ok := e.Object.(*Widget); e.Type != watch.Added || !ok || got.Spec.Color != "red" {
		t.Errorf("watch event %v %#v, want ADDED of the red *Widget", e.Type, e.Object)
	}
}

func TestNewClientRefusesIncompleteResources(t *testing.T) {
	for _, r := range []typed.Resource{{}, {Version: "v1", Resource: "widgets"}, {Version: "v1", Kind: "Widget"}} {
		if _, err := typed.NewClient[*Widget](&typedConfig, r); err == nil {
			t.Errorf("NewClient(%+v) succeeded, want an error", r)
		}
	}
	if _, err := typed.NewClient[*Widget](nil, widgets); err == nil {
		t.Error("NewClient(nil config) succeeded, want an error")
	}
}

func itemNames(items []*Widget) []string {
	names := make([]string, len(items))
	for i, w := range items {
		names[i] = w.Namespace + "/" + w.Name
	}
	return names
}

func requestLines(reqs []request) []string {
	lines := make([]string, len(reqs))
	for i, r := range reqs {
		lines[i] = r.Method + " " + r.Path
		if q := encodeQuery(r.Query); q != "" {
			lines[i] += "?" + q
		}
	}
	return lines
}
