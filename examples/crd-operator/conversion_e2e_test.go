//go:build e2e

package main

import (
	"encoding/base64"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
)

// pointConversionAt makes the WebApp CRD's conversion webhook call the
// server at addr (https://addr/convert) instead of the Service of the
// generated CRD, which the test's API server cannot reach, as
// installWebhooks does for the webhook configurations. The caBundle stays:
// the operator writes it.
func pointConversionAt(t *testing.T, cfg *rest.Config, addr string) {
	t.Helper()
	updateCRD(t, cfg, func(crd *unstructured.Unstructured) error {
		unstructured.RemoveNestedField(crd.Object, "spec", "conversion", "webhook", "clientConfig", "service")
		return unstructured.SetNestedField(crd.Object, "https://"+addr+conversionPath, "spec", "conversion", "webhook", "clientConfig", "url")
	})
}

// setCRDCABundle writes bundle into the WebApp CRD's conversion webhook.
func setCRDCABundle(t *testing.T, cfg *rest.Config, bundle []byte) {
	t.Helper()
	updateCRD(t, cfg, func(crd *unstructured.Unstructured) error {
		return unstructured.SetNestedField(crd.Object, base64.StdEncoding.EncodeToString(bundle), "spec", "conversion", "webhook", "clientConfig", "caBundle")
	})
}

// updateCRD changes the WebApp CRD with change, retrying on conflicts
// with the operator's caBundle writes.
func updateCRD(t *testing.T, cfg *rest.Config, change func(*unstructured.Unstructured) error) {
	t.Helper()
	crds := dynamic.NewForConfigOrDie(cfg).Resource(crdResource)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		crd, err := crds.Get(t.Context(), crdName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := change(crd); err != nil {
			return err
		}
		_, err = crds.Update(t.Context(), crd, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// testConversion reads the WebApp web in namespace shop, written at
// v1alpha1 (image nginx:1.27, replicas 0), at v1, and writes one at v1 and
// reads it at v1alpha1, with kubectl: each read at the version it was not
// stored at goes through the conversion webhook.
func testConversion(t *testing.T, kubectl func(stdin string, args ...string) (string, error)) {
	t.Helper()
	get := func(resource, name, jsonPath string) string {
		out, err := kubectl("", "get", resource, name, "-n", "shop", "-o", "jsonpath="+jsonPath)
		if err != nil {
			t.Errorf("kubectl get %s %s: %v\n%s", resource, name, err, out)
		}
		return out
	}
	if got := get("webapps.v1.example.ctrlkit.dev", "web", "{.spec.image.repository} {.spec.image.tag} {.spec.containerPort} {.spec.replicas}"); got != "nginx 1.27 8080 0" {
		t.Errorf("the v1alpha1 WebApp at v1: %q, want nginx 1.27 8080 0", got)
	}
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	if out, err := kubectl(`{"apiVersion":"example.ctrlkit.dev/v1","kind":"WebApp","metadata":{"name":"web-v1","namespace":"shop"},
		"spec":{"image":{"repository":"registry.example:5000/web","tag":"`+digest+`"},"containerPort":9090}}`, "create", "-f", "-"); err != nil {
		t.Fatalf("kubectl create at v1: %v\n%s", err, out)
	}
	if got := get("webapps.v1alpha1.example.ctrlkit.dev", "web-v1", "{.spec.image} {.spec.port}"); got != "registry.example:5000/web@"+digest+" 9090" {
		t.Errorf("the v1 WebApp at v1alpha1: %q, want registry.example:5000/web@%s 9090", got, digest)
	}
	// A list at v1alpha1 holds both, each converted from v1.
	if got, err := kubectl("", "get", "webapps.v1alpha1.example.ctrlkit.dev", "-n", "shop", "-o", "jsonpath={.items[*].spec.image}"); err != nil || got != "nginx:1.27 registry.example:5000/web@"+digest {
		t.Errorf("the list at v1alpha1: %q, %v", got, err)
	}
	if out, err := kubectl("", "delete", "webapp", "web-v1", "-n", "shop", "--timeout=60s"); err != nil {
		t.Errorf("kubectl delete: %v\n%s", err, out)
	}
}
