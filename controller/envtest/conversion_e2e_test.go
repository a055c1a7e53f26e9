//go:build e2e

package envtest_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/certs"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
)

// The versions of testdata/conversion's Gadget: v1alpha1's size became
// v1's replicas.
type gadgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Replicas int32 `json:"replicas,omitempty"`
	} `json:"spec"`
}

type gadgetV1alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Size int32 `json:"size,omitempty"`
	} `json:"spec"`
}

var gadgets = schema.GroupVersionResource{Group: "conversion.example.com", Resource: "gadgets"}

// InstallWebhooks with a ConversionPath returns only once the CRD converts
// through the test's server: the first create and get after it, each at
// the other version, convert, and the server has been called by the probe
// (a dry-run create at v1alpha1, which the API server converts to the
// storage version v1 and back) before any object was written. Once with
// the environment's certificate, once with self-managed certificates,
// whose caBundle certs.SelfManaged writes into the CRD: until it has, the
// API server does not trust the server, and InstallWebhooks waits.
func TestInstallConversionWebhookE2E(t *testing.T) {
	env := envtest.StartForTest(t, envtest.Options{CRDPaths: []string{"testdata/conversion"}})

	t.Run("environment certificate", func(t *testing.T) {
		srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: env.WebhookCertDir()})
		if err != nil {
			t.Fatal(err)
		}
		reviews := registerConverter(t, srv)
		runServer(t, srv)
		if err := env.InstallWebhooks(t.Context(), envtest.WebhookInstallOptions{Addr: srv.Addr(), ConversionPath: "/convert"}); err != nil {
			t.Fatal(err)
		}
		if n := reviews.Load(); n < 2 {
			t.Errorf("the webhook answered %d ConversionReviews during InstallWebhooks, want at least 2 (to v1 and back)", n)
		}
		expectConverts(t, env, env.Namespace(t))
	})

	t.Run("self-managed certificates", func(t *testing.T) {
		ns := env.Namespace(t)
		crdClient, err := dynamic.NewForConfig(env.RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		sm, err := certs.NewSelfManaged(certs.SelfManagedOptions{
			Options:   certs.Options{Client: env.Client(), Namespace: ns, Name: "webhook-certs", DNSNames: []string{"127.0.0.1"}},
			Webhooks:  certs.Webhooks{CustomResourceDefinitions: []string{"gadgets.conversion.example.com"}},
			CRDClient: crdClient,
		})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, TLSConfig: sm.TLSConfig()})
		if err != nil {
			t.Fatal(err)
		}
		registerConverter(t, srv)
		mgr, err := manager.New(manager.Options{WebhookServer: srv, HealthProbeAddr: "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		if err := sm.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
		runManager(t, mgr)
		if err := env.InstallWebhooks(t.Context(), envtest.WebhookInstallOptions{Addr: srv.Addr(), ConversionPath: "/convert", SelfManaged: true}); err != nil {
			t.Fatal(err)
		}
		expectConverts(t, env, ns)
	})
}

// registerConverter serves the Gadget's conversion at /convert on srv and
// counts the reviews.
func registerConverter(t *testing.T, srv *webhook.Server) *atomic.Int32 {
	converter, err := conversion.NewHubSpokeConverter(gadgets.GroupVersion().WithKind("Gadget").GroupKind().WithVersion("v1"),
		conversion.NewSpokeConverter("v1alpha1",
			func(_ context.Context, src *gadgetV1, dst *gadgetV1alpha1) error {
				dst.ObjectMeta, dst.Spec.Size = src.ObjectMeta, src.Spec.Replicas
				return nil
			},
			func(_ context.Context, src *gadgetV1alpha1, dst *gadgetV1) error {
				dst.ObjectMeta, dst.Spec.Replicas = src.ObjectMeta, src.Spec.Size
				return nil
			}))
	if err != nil {
		t.Fatal(err)
	}
	handler, err := conversion.NewWebhookHandler(conversion.Options{}, converter)
	if err != nil {
		t.Fatal(err)
	}
	reviews := new(atomic.Int32)
	srv.Register("/convert", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reviews.Add(1)
		handler.ServeHTTP(w, r)
	}))
	return reviews
}

// expectConverts creates a Gadget at each version and reads each at the
// other, at once, and fails unless each converted.
func expectConverts(t *testing.T, env *envtest.Environment, ns string) {
	client, err := dynamic.NewForConfig(env.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	at := func(version string) dynamic.ResourceInterface {
		gvr := gadgets
		gvr.Version = version
		return client.Resource(gvr).Namespace(ns)
	}
	if _, err := at("v1alpha1").Create(t.Context(), gadget("v1alpha1", "small", "size", 3), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create at v1alpha1: %v", err)
	}
	if _, err := at("v1").Create(t.Context(), gadget("v1", "big", "replicas", 7), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create at v1: %v", err)
	}
	for _, c := range []struct {
		version, name, field string
		want                 int64
	}{{"v1", "small", "replicas", 3}, {"v1alpha1", "big", "size", 7}, {"v1alpha1", "small", "size", 3}} {
		got, err := at(c.version).Get(t.Context(), c.name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get %s at %s: %v", c.name, c.version, err)
		}
		if n, _, _ := unstructured.NestedInt64(got.Object, "spec", c.field); n != c.want || got.GetAPIVersion() != gadgets.Group+"/"+c.version {
			t.Errorf("%s at %s: %s spec.%s=%d, want %d", c.name, c.version, got.GetAPIVersion(), c.field, n, c.want)
		}
	}
}

// gadget is a Gadget named name at version with spec.field n.
func gadget(version, name, field string, n int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gadgets.Group + "/" + version, "kind": "Gadget",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{field: n},
	}}
}
