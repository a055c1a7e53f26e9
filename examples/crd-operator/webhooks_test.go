package main

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	v1 "github.com/ctrlkit/ctrlkit/examples/crd-operator/api/v1"
	"github.com/ctrlkit/ctrlkit/examples/crd-operator/convert"
)

func newWebApp(name, image string) *v1.WebApp {
	return &v1.WebApp{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Spec: v1.WebAppSpec{Image: convert.SplitImage(image)}}
}

func TestDefaultWebAppLabelsItsName(t *testing.T) {
	app := newWebApp("web", "nginx:1.27")
	if err := defaultWebApp(context.Background(), app); err != nil || app.Labels[nameLabel] != "web" {
		t.Errorf("labels = %v, err %v; want %s=web", app.Labels, err, nameLabel)
	}
	app.Labels[nameLabel] = "mine"
	if err := defaultWebApp(context.Background(), app); err != nil || app.Labels[nameLabel] != "mine" {
		t.Errorf("labels = %v, err %v; want the user's label kept", app.Labels, err)
	}
}

func TestValidateWebApp(t *testing.T) {
	kube := fake.NewClientset(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "taken"}})
	v := webAppValidator{kube}.validator()
	ctx := context.Background()

	if _, err := v.ValidateCreate(ctx, newWebApp("taken", "nginx:1.27")); err == nil ||
		!strings.Contains(err.Error(), `metadata.name: Invalid value: "taken": a Deployment of this name exists`) {
		t.Errorf("create in the way of a Deployment: %v", err)
	}
	warnings, err := v.ValidateCreate(ctx, newWebApp("web", "registry.example:5000/nginx"))
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "has no tag") {
		t.Errorf("create without a tag: warnings %q, err %v", warnings, err)
	}
	if warnings, err := v.ValidateCreate(ctx, newWebApp("web", "registry.example:5000/nginx@sha256:abc")); err != nil || len(warnings) != 0 {
		t.Errorf("create with a digest: warnings %q, err %v", warnings, err)
	}
	scaled := newWebApp("web", "nginx:1.27")
	scaled.Spec.Replicas = ptr.To[int32](0)
	if warnings, err := v.ValidateUpdate(ctx, newWebApp("web", "nginx:1.27"), scaled); err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "0 replicas") {
		t.Errorf("update to 0 replicas: warnings %q, err %v", warnings, err)
	}
	serving := newWebApp("web", "nginx:1.27")
	serving.Status.AvailableReplicas = 2
	if warnings, err := v.ValidateDelete(ctx, serving); err != nil || len(warnings) != 1 {
		t.Errorf("delete of a serving WebApp: warnings %q, err %v; want a warning and no denial", warnings, err)
	}
}
