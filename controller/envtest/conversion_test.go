package envtest

import (
	"os"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A CRD converts by webhook through the first served version that is not
// stored; one without the Webhook strategy, or with one version, is left
// alone.
func TestConversionTarget(t *testing.T) {
	data, err := os.ReadFile("testdata/conversion/gadgets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crds, err := decodeCRDs(data)
	if err != nil || len(crds) != 1 {
		t.Fatalf("decodeCRDs: %v, %d CRDs", err, len(crds))
	}
	got := conversionTarget(crds[0])
	want := conversionCRD{name: "gadgets.conversion.example.com", kind: "Gadget", storage: "v1", namespaced: true,
		probe: schema.GroupVersionResource{Group: "conversion.example.com", Version: "v1alpha1", Resource: "gadgets"}}
	if got == nil || *got != want {
		t.Errorf("conversionTarget = %+v, want %+v", got, want)
	}

	none := crds[0].DeepCopy()
	none.Object["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "None"}
	if got := conversionTarget(none); got != nil {
		t.Errorf("conversionTarget of a CRD with strategy None = %+v, want nil", got)
	}
	one := crds[0].DeepCopy()
	spec := one.Object["spec"].(map[string]any)
	spec["versions"] = spec["versions"].([]any)[:1]
	if got := conversionTarget(one); got != nil {
		t.Errorf("conversionTarget of a CRD with one version = %+v, want nil", got)
	}
}

// InstallWebhooks needs something to install, a DryRunProbe only for
// admission webhooks, and a ConversionPath that is a path.
func TestInstallWebhooksOptions(t *testing.T) {
	env := &Environment{}
	for _, c := range []struct {
		opts WebhookInstallOptions
		want string
	}{
		{WebhookInstallOptions{Addr: "127.0.0.1:9443"}, "no webhook configuration and no ConversionPath"},
		{WebhookInstallOptions{Addr: "127.0.0.1:9443", ConversionPath: "convert"}, `ConversionPath "convert" does not start with /`},
		{WebhookInstallOptions{Addr: "127.0.0.1:9443", ValidatingWebhooks: []*admissionregistrationv1.ValidatingWebhookConfiguration{{}}}, "DryRunProbe is required"},
		{WebhookInstallOptions{Addr: "nowhere", ConversionPath: "/convert"}, "Addr"},
	} {
		if err := env.InstallWebhooks(t.Context(), c.opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("InstallWebhooks(%+v) = %v, want %q", c.opts, err, c.want)
		}
	}
}
