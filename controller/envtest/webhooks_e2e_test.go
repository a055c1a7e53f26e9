//go:build e2e

package envtest_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/webhook"
	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	"github.com/ctrlkit/ctrlkit/controller/webhook/certs"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// InstallWebhooks returns only once the API server calls the webhooks:
// the first create after it is denied by a webhook whose failurePolicy is
// Ignore, which a configuration the API server had not loaded yet, or a
// server it could not reach, would let pass. Once with the environment's
// certificate, once with self-managed certificates, whose readiness check
// waits for its own dry-run probe too.
func TestInstallWebhooksE2E(t *testing.T) {
	env := envtest.StartForTest(t, envtest.Options{})

	t.Run("environment certificate", func(t *testing.T) {
		ns := env.Namespace(t)
		srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: env.WebhookCertDir()})
		if err != nil {
			t.Fatal(err)
		}
		srv.Register("/deny", denyConfigMaps())
		runServer(t, srv)
		if err := env.InstallWebhooks(t.Context(), envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{denyWebhook("deny-env-cert")},
			Addr:               srv.Addr(),
			DryRunProbe:        probe(ns, "deny-env-cert"),
		}); err != nil {
			t.Fatal(err)
		}
		expectDenied(t, env, ns, "deny-env-cert")
	})

	// A server the API server does not trust is never reached: under
	// failurePolicy Ignore the probe is admitted, and InstallWebhooks says
	// that no webhook was called.
	t.Run("untrusted certificate", func(t *testing.T) {
		ns := env.Namespace(t)
		srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: env.WebhookCertDir()})
		if err != nil {
			t.Fatal(err)
		}
		srv.Register("/deny", denyConfigMaps())
		runServer(t, srv)
		foreignCA, _, err := cert.GenerateSelfSignedCertKey("another-ca", nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		err = env.InstallWebhooks(ctx, envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{denyWebhook("deny-untrusted")},
			Addr:               srv.Addr(),
			CABundle:           foreignCA,
			DryRunProbe:        probe(ns, "deny-untrusted"),
		})
		want := "the probe reached no webhook of ValidatingWebhookConfiguration deny-untrusted (/deny): the API server admitted it without calling them"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("InstallWebhooks = %v, want it to say %q", err, want)
		}
	})

	t.Run("self-managed certificates", func(t *testing.T) {
		ns := env.Namespace(t)
		sm, err := certs.NewSelfManaged(certs.SelfManagedOptions{
			Options:     certs.Options{Client: env.Client(), Namespace: ns, Name: "webhook-certs", DNSNames: []string{"127.0.0.1"}},
			Webhooks:    certs.Webhooks{ValidatingWebhookConfigurations: []string{"deny-self-managed"}},
			DryRunProbe: probe(ns, "deny-self-managed"),
		})
		if err != nil {
			t.Fatal(err)
		}
		srv, err := webhook.NewServer(webhook.Options{Host: "127.0.0.1", Port: -1, TLSConfig: sm.TLSConfig()})
		if err != nil {
			t.Fatal(err)
		}
		srv.Register("/deny", denyConfigMaps())
		mgr, err := manager.New(manager.Options{WebhookServer: srv, HealthProbeAddr: "127.0.0.1:0"})
		if err != nil {
			t.Fatal(err)
		}
		if err := sm.SetupWithManager(mgr); err != nil {
			t.Fatal(err)
		}
		runManager(t, mgr)
		if err := env.InstallWebhooks(t.Context(), envtest.WebhookInstallOptions{
			ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{denyWebhook("deny-self-managed")},
			Addr:               srv.Addr(),
			SelfManaged:        true,
			DryRunProbe:        probe(ns, "deny-self-managed"),
		}); err != nil {
			t.Fatal(err)
		}
		expectDenied(t, env, ns, "deny-self-managed")
		testutil.Eventually(t, time.Minute, "/readyz/webhook-certificates, with its dry-run probe, to pass", func(context.Context) (bool, error) {
			got := readyz(mgr)
			return got == "", errors.New(got)
		})
	})
}

// denyConfigMaps denies the creation of a ConfigMap with a key "deny".
func denyConfigMaps() http.Handler {
	return admission.WithValidator(admission.ValidatorFuncs[corev1.ConfigMap]{
		Create: func(_ context.Context, cm *corev1.ConfigMap) (admission.Warnings, error) {
			if _, ok := cm.Data["deny"]; ok {
				return nil, field.Forbidden(field.NewPath("data", "deny"), "denied by the test's webhook")
			}
			return nil, nil
		},
	})
}

// denyWebhook is a configuration named name whose webhook sees the
// ConfigMaps labelled webhook-test=name, at /deny of a Service that
// InstallWebhooks replaces by the test's server. It fails open, so only a
// webhook really called denies.
func denyWebhook(name string) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "deny.configmaps.example.com",
			ClientConfig: admissionregistrationv1.WebhookClientConfig{
				Service: &admissionregistrationv1.ServiceReference{Namespace: "system", Name: "webhook", Path: ptr.To("/deny")}},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
			}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: map[string]string{"webhook-test": name}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Ignore),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// probe is a ConfigMap that the webhook of denyWebhook(name) sees.
func probe(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "labels": map[string]any{"webhook-test": name}}}}
}

// expectDenied creates a ConfigMap that the webhook of denyWebhook(name)
// denies, at once, and fails unless it is denied.
func expectDenied(t *testing.T, env *envtest.Environment, ns, name string) {
	t.Helper()
	_, err := env.Client().CoreV1().ConfigMaps(ns).Create(t.Context(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "denied", Labels: map[string]string{"webhook-test": name}},
		Data:       map[string]string{"deny": "yes"},
	}, metav1.CreateOptions{})
	if err == nil || !strings.Contains(err.Error(), "data.deny: Forbidden: denied by the test's webhook") {
		t.Errorf("the first create after InstallWebhooks: %v, want the webhook's denial", err)
	}
}

// runServer serves srv until the test ends.
func runServer(t *testing.T, srv *webhook.Server) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("webhook server: %v", err)
		}
	})
	select {
	case <-srv.Listening():
	case err := <-done:
		t.Fatalf("webhook server: %v", err)
	}
}

// runManager runs mgr until the test ends, and returns once its webhook
// server and health probes listen.
func runManager(t *testing.T, mgr *manager.Manager) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	select {
	case <-mgr.GetWebhookServer().Listening():
	case err := <-done:
		t.Fatalf("manager: %v", err)
	}
	testutil.Eventually(t, 30*time.Second, "the health probes to listen", testutil.True(func() bool { return mgr.HealthProbeAddr() != "" }))
}

// readyz is the failure the webhook-certificates check reports, "" if it
// passes.
func readyz(mgr *manager.Manager) string {
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
