package main

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	webappac "github.com/ctrlkit/ctrlkit/examples/crd-operator/applyconfiguration/api/v1"
)

// TestApplyOwnsOnlyWhatItSets is the zero-value pitfall of server-side
// apply (Kubernetes #95989), on the fake typed client, which merges as the
// API server does. A user applies a WebApp's image and replicas; a scaler
// applies replicas alone, forced. The scaler's apply configuration leaves
// the image unset, so the scaler does not own it and the user's image
// survives. A whole WebApp would have sent image "" (the field is not
// omitempty), taken it over and reset it.
func TestApplyOwnsOnlyWhatItSets(t *testing.T) {
	ctx := context.Background()
	fake, err := controllertest.NewTypedClient[*v1.WebApp](v1.Resource)
	if err != nil {
		t.Fatal(err)
	}
	webApps := fake.Namespace("shop")
	if _, err := webApps.Apply(ctx, webappac.WebApp("web", "shop").
		WithSpec(webappac.WebAppSpec().WithImage(webappac.Image().WithRepository("nginx").WithTag("1.26")).WithReplicas(2)),
		metav1.ApplyOptions{FieldManager: "kubectl"}); err != nil {
		t.Fatal(err)
	}
	app, err := webApps.Apply(ctx, webappac.WebApp("web", "shop").
		WithSpec(webappac.WebAppSpec().WithReplicas(5)),
		metav1.ApplyOptions{FieldManager: "scaler", Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if app.Spec.Image != (v1.Image{Repository: "nginx", Tag: "1.26"}) || app.Spec.Replicas == nil || *app.Spec.Replicas != 5 {
		t.Errorf("spec %+v, want the user's image and the scaler's 5 replicas", app.Spec)
	}
	checkOwners(t, app,
		owner{fieldpath.MakePathOrDie("spec", "image", "repository"), "kubectl"},
		owner{fieldpath.MakePathOrDie("spec", "image", "tag"), "kubectl"},
		owner{fieldpath.MakePathOrDie("spec", "replicas"), "scaler"})
}

// owner is a field and the one manager that should own it.
type owner struct {
	path    fieldpath.Path
	manager string
}

// checkOwners fails t unless each field of want is owned by its manager
// alone, among the managers of obj's main resource and status.
func checkOwners(t *testing.T, obj metav1.Object, want ...owner) {
	t.Helper()
	for _, w := range want {
		path, manager := w.path, w.manager
		var owners []string
		for _, entry := range obj.GetManagedFields() {
			if entry.FieldsV1 == nil {
				continue
			}
			set := fieldpath.NewSet()
			if err := set.FromJSON(entry.FieldsV1.GetRawReader()); err != nil {
				t.Fatalf("managed fields of %s: %v", entry.Manager, err)
			}
			if set.Has(path) {
				owners = append(owners, entry.Manager)
			}
		}
		if len(owners) != 1 || owners[0] != manager {
			t.Errorf("%s is owned by %v, want %s alone", path, owners, manager)
		}
	}
}
