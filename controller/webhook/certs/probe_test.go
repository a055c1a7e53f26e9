package certs

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

// With DryRunProbe, the check fails until the probe's answer shows it
// reached a webhook of every configuration, says what it met instead, and
// sends no probe once one has.
func TestDryRunProbe(t *testing.T) {
	client := fake.NewClientset()
	configs(client, t)
	sm := newSelfManaged(t, client)
	sm.opts.DryRunProbe = &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "shop"}}}
	type answer struct {
		reached []string
		err     error
	}
	answers := []answer{
		{nil, errors.New(`Internal error occurred: failed calling webhook "a.example.com": x509: certificate signed by unknown authority`)},
		{nil, nil},
		{[]string{"/validate"}, nil},
	}
	var sent int
	sm.sendProbe = func(_ context.Context, _ kubernetes.Interface, obj *unstructured.Unstructured) ([]string, error) {
		if obj != sm.opts.DryRunProbe {
			t.Errorf("sent %v, want DryRunProbe", obj)
		}
		a := answers[min(sent, len(answers)-1)]
		sent++
		return a.reached, a.err
	}

	ctx := context.Background()
	if _, err := sm.rotator.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	bundle := secret(t, client).Data["ca.crt"]
	v, _ := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Get(ctx, "validating", metav1.GetOptions{})
	for i := range v.Webhooks {
		v.Webhooks[i].ClientConfig.CABundle = bundle
	}
	m, _ := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Get(ctx, "mutating", metav1.GetOptions{})
	m.Webhooks[0].ClientConfig.CABundle = bundle
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Update(ctx, v, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Update(ctx, m, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	srv := serveFrom(t, sm)

	check := sm.trusted(srv.Addr)
	req, _ := http.NewRequest(http.MethodGet, "/readyz", nil)
	for i, want := range []string{
		"a dry-run create of the probe Widget reached no webhook of ValidatingWebhookConfiguration validating (/validate); MutatingWebhookConfiguration mutating (/validate): " +
			`Internal error occurred: failed calling webhook "a.example.com": x509: certificate signed by unknown authority`,
		"the API server admitted it without calling them",
	} {
		if err := check(req); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("check %d = %v, want it to say %q", i, err, want)
		}
	}
	for i := range 2 {
		if err := check(req); err != nil {
			t.Errorf("check after the probe reached the webhooks (%d) = %v", i, err)
		}
	}
	if sent != 3 {
		t.Errorf("%d probes sent, want 3: none once one reached the webhooks", sent)
	}
}
