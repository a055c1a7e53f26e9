//go:build e2e

package main

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/webhook/certs"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// TestWebAppWebhooksForeignCAE2E gives the webhooks a caBundle from
// another CA (kueue #7344's upgrade) and checks that /readyz fails and
// says which webhook would not trust the served certificate, and why;
// with the right bundle it passes. The replica is a standby (another
// holds the Lease), so no keeper writes the bundle back: the check alone
// is under test, as on every replica but the elected one.
func TestWebAppWebhooksForeignCAE2E(t *testing.T) {
	env, kube := startOperatorEnv(t, nil)
	ctx := t.Context()

	// The certificates the elected replica would have made, and a CA
	// that has nothing to do with them.
	bundle := caBundle(t, kube, "webapp-operator-webhook-certs")
	foreign := caBundle(t, kube, "another-ca")
	now := metav1.NewMicroTime(time.Now())
	if _, err := kube.CoordinationV1().Leases("ctrlkit-system").Create(ctx, &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: component},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("the-elected-replica"), LeaseDurationSeconds: ptr.To[int32](3600),
			AcquireTime: &now, RenewTime: &now},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	mgr := startWebhookOperator(t, env.RESTConfig())
	installWebhooks(t, kube, mgr.GetWebhookServer().Addr())
	pointConversionAt(t, env.RESTConfig(), mgr.GetWebhookServer().Addr())
	setCABundle(t, kube, foreign)
	setCRDCABundle(t, env.RESTConfig(), foreign)
	testutil.Eventually(t, time.Minute, "/readyz to name each webhook that does not trust the certificate", func(context.Context) (bool, error) {
		got := readyz(t, mgr)
		for _, want := range []string{
			"webhook default.webapps.example.ctrlkit.dev of MutatingWebhookConfiguration webapp-operator: x509: certificate signed by unknown authority",
			"webhook validate.webapps.example.ctrlkit.dev of ValidatingWebhookConfiguration webapp-operator: x509: certificate signed by unknown authority",
			"webhook validate-delete.webapps.example.ctrlkit.dev of ValidatingWebhookConfiguration webapp-operator: x509: certificate signed by unknown authority",
			"webhook conversion of CustomResourceDefinition webapps.example.ctrlkit.dev: x509: certificate signed by unknown authority",
		} {
			if !strings.Contains(got, want) {
				return false, errors.New(got)
			}
		}
		return true, nil
	})

	setCABundle(t, kube, bundle)
	setCRDCABundle(t, env.RESTConfig(), bundle)
	testutil.Eventually(t, time.Minute, "/readyz to pass with the right caBundle", func(context.Context) (bool, error) {
		got := readyz(t, mgr)
		return got == "", errors.New(got)
	})
	if l, err := kube.CoordinationV1().Leases("ctrlkit-system").Get(ctx, component, metav1.GetOptions{}); err != nil || ptr.Deref(l.Spec.HolderIdentity, "") != "the-elected-replica" {
		t.Errorf("the Lease: %v, %v; want it still held by the-elected-replica (the replica under test a standby)", l, err)
	}
}

// caBundle creates certificates for 127.0.0.1 in the Secret
// ctrlkit-system/name, as the elected replica does, and returns their CA.
func caBundle(t *testing.T, kube kubernetes.Interface, name string) []byte {
	t.Helper()
	r, err := certs.NewRotator(certs.Options{Client: kube, Namespace: "ctrlkit-system", Name: name, DNSNames: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Sync(t.Context()); err != nil {
		t.Fatal(err)
	}
	var s *corev1.Secret
	if s, err = kube.CoreV1().Secrets("ctrlkit-system").Get(t.Context(), name, metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	return s.Data["ca.crt"]
}

// setCABundle writes bundle into every webhook of the configurations
// named webapp-operator.
func setCABundle(t *testing.T, kube kubernetes.Interface, bundle []byte) {
	t.Helper()
	api := kube.AdmissionregistrationV1()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := api.ValidatingWebhookConfigurations().Get(t.Context(), webhookConfigurations, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range c.Webhooks {
			c.Webhooks[i].ClientConfig.CABundle = bundle
		}
		_, err = api.ValidatingWebhookConfigurations().Update(t.Context(), c, metav1.UpdateOptions{})
		return err
	})
	if err == nil {
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			c, err := api.MutatingWebhookConfigurations().Get(t.Context(), webhookConfigurations, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for i := range c.Webhooks {
				c.Webhooks[i].ClientConfig.CABundle = bundle
			}
			_, err = api.MutatingWebhookConfigurations().Update(t.Context(), c, metav1.UpdateOptions{})
			return err
		})
	}
	if err != nil {
		t.Fatal(err)
	}
}
