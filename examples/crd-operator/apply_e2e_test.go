//go:build e2e

package main

import (
	"context"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/ctrlkit/ctrlkit/controller/typed"
	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	webappac "github.com/ctrlkit/ctrlkit/examples/crd-operator/applyconfiguration/api/v1"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestServerSideApplyE2E: on a real API server, with the CRD's schema,
// an apply owns only the fields its apply configuration sets. A user
// applies a WebApp's image and replicas and a prober applies a Healthy
// condition to its status; then a scaler applies replicas alone, and the
// operator applies its status for the new generation. The user's image
// survives the scaler's apply and is not the scaler's (a whole WebApp
// would send image "", which the schema refuses), and the prober's
// condition survives the operator's apply and is not the operator's.
func TestServerSideApplyE2E(t *testing.T) {
	env, _ := startOperatorEnv(t, nil, "shop")
	c := cluster{config: env.RESTConfig(), kubectl: func(ctx context.Context, args ...string) ([]byte, error) {
		return env.Kubectl(ctx, args...).CombinedOutput()
	}}
	ctx := t.Context()
	client, err := typed.NewClient[*v1.WebApp](c.config, v1.Resource)
	if err != nil {
		t.Fatal(err)
	}
	webApps := client.Namespace("shop")

	if _, err := webApps.Apply(ctx, webappac.WebApp("web", "shop").
		WithSpec(webappac.WebAppSpec().WithImage(webappac.Image().WithRepository("nginx").WithTag("1.26")).WithReplicas(2)),
		metav1.ApplyOptions{FieldManager: "kubectl"}); err != nil {
		t.Fatal(err)
	}
	healthy := metav1ac.Condition().WithType("Healthy").WithStatus(metav1.ConditionTrue).
		WithReason("ProbeSucceeded").WithMessage("").WithLastTransitionTime(metav1.Now())
	if _, err := webApps.ApplyStatus(ctx, webappac.WebApp("web", "shop").
		WithStatus(webappac.WebAppStatus().WithConditions(healthy)),
		metav1.ApplyOptions{FieldManager: "prober"}); err != nil {
		t.Fatal(err)
	}
	startOperator(t, c)

	app, err := webApps.Apply(ctx, webappac.WebApp("web", "shop").
		WithSpec(webappac.WebAppSpec().WithReplicas(3)),
		metav1.ApplyOptions{FieldManager: "scaler", Force: true})
	if err != nil {
		t.Fatalf("the scaler's apply: %v", err)
	}
	if app.Spec.Image != (v1.Image{Repository: "nginx", Tag: "1.26"}) || *app.Spec.Replicas != 3 {
		t.Errorf("spec %+v, want the user's image and the scaler's 3 replicas", app.Spec)
	}
	testutil.Eventually(t, time.Minute, "the operator's status of generation 2", func(ctx context.Context) (bool, error) {
		app, err = webApps.Get(ctx, "web", metav1.GetOptions{})
		return err == nil && app.Generation == 2 && app.Status.ObservedGeneration == 2, err
	})
	if c := meta.FindStatusCondition(app.Status.Conditions, "Healthy"); c == nil || c.Status != metav1.ConditionTrue {
		t.Errorf("the prober's condition is %+v after the operator's apply, want Healthy=True", c)
	}
	conditions := func(t string) fieldpath.Path {
		return fieldpath.MakePathOrDie("status", "conditions", fieldpath.KeyByFields("type", t))
	}
	checkOwners(t, app,
		owner{fieldpath.MakePathOrDie("spec", "image", "repository"), "kubectl"},
		owner{fieldpath.MakePathOrDie("spec", "image", "tag"), "kubectl"},
		owner{fieldpath.MakePathOrDie("spec", "replicas"), "scaler"},
		owner{conditions("Healthy"), "prober"},
		owner{conditions(v1.Available), component},
		owner{fieldpath.MakePathOrDie("status", "observedGeneration"), component})
}
