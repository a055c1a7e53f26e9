package controllertest_test

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// Gadget is a custom resource's Go type, as a user writes it.
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GadgetSpec   `json:"spec,omitempty"`
	Status            GadgetStatus `json:"status,omitempty"`
}

type GadgetSpec struct {
	Color string `json:"color,omitempty"`
}

type GadgetStatus struct {
	Ready bool `json:"ready,omitempty"`
}

func (g *Gadget) DeepCopyObject() runtime.Object {
	out := *g
	g.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

var gadgets = typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "gadgets", Kind: "Gadget", Namespaced: true}

func gadget(name, color string) *Gadget {
	return &Gadget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: GadgetSpec{Color: color}}
}

func TestTypedClientHasServerWriteSemantics(t *testing.T) {
	ctx := context.Background()
	seed := gadget("seeded", "red")
	c, err := controllertest.NewTypedClient(gadgets, seed)
	if err != nil {
		t.Fatal(err)
	}
	if seed.ResourceVersion != "" {
		t.Error("NewTypedClient modified its seed")
	}
	shop := c.Namespace("shop")
	stored, err := shop.Get(ctx, "seeded", metav1.GetOptions{})
	if err != nil || stored.ResourceVersion == "" {
		t.Fatalf("seeded Get = %+v, %v; want it with a resourceVersion", stored, err)
	}

	created, err := shop.Create(ctx, &Gadget{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "a"},
		Spec: GadgetSpec{Color: "blue"}, Status: GadgetStatus{Ready: true}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Generation != 1 || created.UID == "" || created.ResourceVersion == "" || created.Status.Ready {
		t.Errorf("created %+v; want generation 1, a uid and resourceVersion, no status", created)
	}

	changed := created.DeepCopyObject().(*Gadget)
	changed.Spec.Color = "green"
	updated, err := shop.Update(ctx, changed, metav1.UpdateOptions{})
	if err != nil || updated.Generation != 2 {
		t.Fatalf("spec update = generation %d, %v; want 2", updated.Generation, err)
	}

	stale := created.DeepCopyObject().(*Gadget)
	stale.Status.Ready = true
	if _, err := shop.UpdateStatus(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("status update from a stale copy: %v, want a Conflict", err)
	}
	fresh := updated.DeepCopyObject().(*Gadget)
	fresh.Status.Ready = true
	fresh.Spec.Color = "ignored"
	status, err := shop.UpdateStatus(ctx, fresh, metav1.UpdateOptions{})
	if err != nil || !status.Status.Ready || status.Spec.Color != "green" || status.Generation != 2 {
		t.Errorf("status update = %+v, %v; want ready, the stored spec and generation", status, err)
	}

	list, err := c.Namespace("").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 2 {
		t.Errorf("List = %v, %v; want both gadgets", list, err)
	}
	var writes int
	for _, a := range c.Actions() {
		if a.GetVerb() == "create" || a.GetVerb() == "update" {
			writes++
		}
	}
	if writes != 4 {
		t.Errorf("recorded %d writes, want the 4 sent", writes)
	}
}

func TestTypedClientWatchesCopies(t *testing.T) {
	ctx := context.Background()
	c, err := controllertest.NewTypedClient[*Gadget](gadgets)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Namespace("shop").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := c.Namespace("shop").Create(ctx, gadget("a", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	if ev.Type != watch.Added {
		t.Fatalf("event %v, want Added", ev.Type)
	}
	ev.Object.(*Gadget).Spec.Color = "scribbled"
	stored, err := c.Tracker().Get(gadgets.GroupVersionResource(), "shop", "a")
	if err != nil || stored.(*Gadget).Spec.Color != "red" {
		t.Errorf("stored %+v, %v: a watcher's edit reached the store", stored, err)
	}
}

func TestNewTypedClientRejectsBadInput(t *testing.T) {
	if _, err := controllertest.NewTypedClient[*Gadget](typed.Resource{Group: "example.ctrlkit.dev"}); err == nil {
		t.Error("an incomplete Resource: no error")
	}
	if _, err := controllertest.NewTypedClient(gadgets, gadget("a", "red"), gadget("a", "blue")); err == nil {
		t.Error("two seeds of one name: no error")
	}
}
