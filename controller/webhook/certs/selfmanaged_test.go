package certs

import (
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller/internal/pki"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

const webhookURL = "https://127.0.0.1:9443/validate"

func configs(client *fake.Clientset, t *testing.T) {
	t.Helper()
	url := webhookURL
	cc := admissionv1.WebhookClientConfig{URL: &url}
	ctx := context.Background()
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "validating"},
		Webhooks:   []admissionv1.ValidatingWebhook{{Name: "a.example.com", ClientConfig: cc}, {Name: "b.example.com", ClientConfig: cc}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "mutating"},
		Webhooks:   []admissionv1.MutatingWebhook{{Name: "m.example.com", ClientConfig: cc}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// conversionCRD is a CRD converted by a webhook at webhookURL.
func conversionCRD() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{"conversion": map[string]any{"strategy": "Webhook",
			"webhook": map[string]any{"clientConfig": map[string]any{"url": webhookURL}, "conversionReviewVersions": []any{"v1"}}}},
	}}
}

func newSelfManaged(t *testing.T, client *fake.Clientset, crds ...runtime.Object) *SelfManaged {
	t.Helper()
	opts := SelfManagedOptions{
		Options:  Options{Client: client, Namespace: ns, Name: name, DNSNames: []string{"127.0.0.1"}},
		Webhooks: Webhooks{ValidatingWebhookConfigurations: []string{"validating"}, MutatingWebhookConfigurations: []string{"mutating"}},
	}
	if len(crds) > 0 {
		opts.Webhooks.CustomResourceDefinitions = []string{"widgets.example.com"}
		opts.CRDClient = dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
			map[schema.GroupVersionResource]string{crdResource: "CustomResourceDefinitionList"}, crds...)
	}
	sm, err := NewSelfManaged(opts)
	if err != nil {
		t.Fatal(err)
	}
	return sm
}

// readyz reads the manager's webhook-certificates check: "" when it passes.
func readyz(t *testing.T, mgr *manager.Manager) string {
	t.Helper()
	resp, err := http.Get("http://" + mgr.HealthProbeAddr() + "/readyz/webhook-certificates")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusOK {
		return ""
	}
	return string(body)
}

// The path of a replica that is elected: the manager runs the rotation,
// which writes the bundle into every webhook of the named configurations
// and writes it again when someone resets it; /readyz passes once the
// served certificate verifies against all of them.
func TestSelfManagedInManager(t *testing.T) {
	client := fake.NewClientset()
	configs(client, t)
	sm := newSelfManaged(t, client, conversionCRD())
	srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, TLSConfig: sm.TLSConfig()})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := manager.New(manager.Options{WebhookServer: srv, HealthProbeAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := sm.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()

	testutil.Eventually(t, 10*time.Second, "/readyz/webhook-certificates to pass", func(context.Context) (bool, error) {
		return readyz(t, mgr) == "", nil
	})
	bundle := secret(t, client).Data["ca.crt"]
	v, _ := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "validating", metav1.GetOptions{})
	m, _ := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "mutating", metav1.GetOptions{})
	for _, got := range [][]byte{v.Webhooks[0].ClientConfig.CABundle, v.Webhooks[1].ClientConfig.CABundle, m.Webhooks[0].ClientConfig.CABundle} {
		if !bytes.Equal(got, bundle) {
			t.Errorf("caBundle = %q, want the Secret's ca.crt", got)
		}
	}

	crd, err := sm.opts.CRDClient.Resource(crdResource).Get(ctx, "widgets.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, _, _ := unstructured.NestedString(crd.Object, append(crdClientConfig, "caBundle")...); got != base64.StdEncoding.EncodeToString(bundle) {
		t.Errorf("the CRD's conversion caBundle = %q, want the Secret's ca.crt in base64", got)
	}

	// kubectl apply of a manifest without a caBundle resets it.
	v.Webhooks[1].ClientConfig.CABundle = nil
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, v, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 10*time.Second, "the reset caBundle to be written again", func(ctx context.Context) (bool, error) {
		v, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "validating", metav1.GetOptions{})
		return err == nil && bytes.Equal(v.Webhooks[1].ClientConfig.CABundle, bundle), err
	})
}

// /readyz says which webhook would not trust the served certificate, and
// why: no caBundle, or one from another CA (kueue #7344's "unknown
// authority").
func TestTrustedSaysWhy(t *testing.T) {
	client := fake.NewClientset()
	configs(client, t)
	sm := newSelfManaged(t, client, conversionCRD())
	if _, err := sm.rotator.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	other, err := pki.NewCA("other", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(context.Background(), "validating", metav1.GetOptions{})
	v.Webhooks[0].ClientConfig.CABundle = other.CertPEM
	v.Webhooks[1].ClientConfig.CABundle = secret(t, client).Data["ca.crt"]
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(context.Background(), v, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	srv := serveFrom(t, sm)

	check := sm.trusted(srv.Addr)
	req, _ := http.NewRequest(http.MethodGet, "/readyz", nil)
	err = check(req)
	if err == nil {
		t.Fatal("check passed, want it to fail")
	}
	for _, want := range []string{
		"webhook a.example.com of ValidatingWebhookConfiguration validating: x509: certificate signed by unknown authority",
		"webhook m.example.com of MutatingWebhookConfiguration mutating: no caBundle",
		"webhook conversion of CustomResourceDefinition widgets.example.com: no caBundle",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("check = %v\nwant it to say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "b.example.com") {
		t.Errorf("check = %v, blames b.example.com, whose caBundle is right", err)
	}
	if err := sm.trusted(func() string { return "" })(req); err == nil || !strings.Contains(err.Error(), "not listening") {
		t.Errorf("check before the server listens = %v", err)
	}
}

// serveFrom starts sm's informers and a webhook server on 127.0.0.1 that
// serves sm's certificate, both stopped when the test ends, and returns
// the server once it listens.
func serveFrom(t *testing.T, sm *SelfManaged) *webhook.Server {
	t.Helper()
	stop := make(chan struct{})
	for _, f := range sm.factories {
		f.Start(stop)
		f.WaitForCacheSync(stop)
	}
	t.Cleanup(func() {
		close(stop)
		for _, f := range sm.factories {
			f.(manager.ShutdownInformerFactory).Shutdown()
		}
	})
	srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, TLSConfig: sm.TLSConfig()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	<-srv.Listening()
	return srv
}
