package controllertest_test

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// GadgetApplyConfiguration is Gadget's apply configuration, in the shape
// applyconfiguration-gen writes: pointers, so only what is set is sent.
type GadgetApplyConfiguration struct {
	metav1ac.TypeMetaApplyConfiguration    `json:",inline"`
	*metav1ac.ObjectMetaApplyConfiguration `json:"metadata,omitempty"`
	Spec                                   *struct {
		Color *string `json:"color,omitempty"`
	} `json:"spec,omitempty"`
	Status *struct {
		Ready *bool `json:"ready,omitempty"`
	} `json:"status,omitempty"`
}

func (GadgetApplyConfiguration) IsApplyConfiguration() {}

func (g *GadgetApplyConfiguration) GetName() *string { return g.Name }

func applyGadget(name string) *GadgetApplyConfiguration {
	return &GadgetApplyConfiguration{
		TypeMetaApplyConfiguration:   *metav1ac.TypeMeta().WithAPIVersion("example.ctrlkit.dev/v1").WithKind("Gadget"),
		ObjectMetaApplyConfiguration: metav1ac.ObjectMeta().WithName(name).WithNamespace("shop"),
	}
}

func withColor(g *GadgetApplyConfiguration, color string) *GadgetApplyConfiguration {
	g.Spec = &struct {
		Color *string `json:"color,omitempty"`
	}{Color: &color}
	return g
}

func withReady(g *GadgetApplyConfiguration, ready bool) *GadgetApplyConfiguration {
	g.Status = &struct {
		Ready *bool `json:"ready,omitempty"`
	}{Ready: &ready}
	return g
}

// TestTypedClientServesApply: an apply creates or merges, records its
// manager, conflicts with another manager's field unless forced, and is
// one write with the server's rules (resourceVersion, generation, uid, the
// status subresource), as every other write.
func TestTypedClientServesApply(t *testing.T) {
	ctx := context.Background()
	c, err := controllertest.NewTypedClient[*Gadget](gadgets)
	if err != nil {
		t.Fatal(err)
	}
	shop := c.Namespace("shop")
	w, err := shop.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	if _, err := shop.ApplyStatus(ctx, withReady(applyGadget("a"), true), metav1.ApplyOptions{FieldManager: "m"}); !apierrors.IsNotFound(err) {
		t.Errorf("status apply of a missing object: %v, want NotFound", err)
	}
	if _, err := shop.Apply(ctx, withColor(applyGadget("a"), "red"), metav1.ApplyOptions{}); !apierrors.IsBadRequest(err) {
		t.Errorf("apply without a field manager: %v, want BadRequest", err)
	}
	created, err := shop.Apply(ctx, withReady(withColor(applyGadget("a"), "red"), true), metav1.ApplyOptions{FieldManager: "user"})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.Color != "red" || created.Status.Ready || created.Generation != 1 || created.UID == "" || created.ResourceVersion == "" {
		t.Errorf("created by apply: %+v; want red, no status, generation 1, a uid and resourceVersion", created)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Added || ev.Object.(*Gadget).ResourceVersion != created.ResourceVersion {
		t.Errorf("watch: %v %+v, want the created object, Added", ev.Type, ev.Object)
	}

	if _, err := shop.Apply(ctx, withColor(applyGadget("a"), "blue"), metav1.ApplyOptions{FieldManager: "other"}); !apierrors.IsConflict(err) ||
		!strings.Contains(err.Error(), "user") {
		t.Errorf("apply of another manager's field: %v, want a Conflict naming it", err)
	}
	stale := withColor(applyGadget("a"), "blue")
	stale.WithResourceVersion("999")
	if _, err := shop.Apply(ctx, stale, metav1.ApplyOptions{FieldManager: "other", Force: true}); !apierrors.IsConflict(err) {
		t.Errorf("apply with a stale resourceVersion: %v, want a Conflict", err)
	}
	forced, err := shop.Apply(ctx, withColor(applyGadget("a"), "blue"), metav1.ApplyOptions{FieldManager: "other", Force: true})
	if err != nil || forced.Spec.Color != "blue" || forced.Generation != 2 || forced.ResourceVersion == created.ResourceVersion {
		t.Fatalf("forced apply = %+v, %v; want blue, generation 2, a new resourceVersion", forced, err)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Modified || ev.Object.(*Gadget).ResourceVersion != forced.ResourceVersion {
		t.Errorf("watch: %v %+v, want the forced apply's object, once", ev.Type, ev.Object)
	}

	status, err := shop.ApplyStatus(ctx, withReady(withColor(applyGadget("a"), "ignored"), true), metav1.ApplyOptions{FieldManager: "reporter"})
	if err != nil || !status.Status.Ready || status.Spec.Color != "blue" || status.Generation != 2 {
		t.Errorf("status apply = %+v, %v; want ready, the stored spec and generation", status, err)
	}
	if ev := <-w.ResultChan(); ev.Object.(*Gadget).ResourceVersion != status.ResourceVersion {
		t.Errorf("watch: %+v, want the status apply's object next: one event a write", ev.Object)
	}
	managers := map[string]string{}
	for _, e := range status.ManagedFields {
		managers[e.Manager] = string(e.Operation) + "/" + e.Subresource
	}
	if managers["other"] != "Apply/" || managers["reporter"] != "Apply/status" {
		t.Errorf("managers %v, want other's apply and reporter's apply of the status", managers)
	}
}
