package envtest

import (
	"os"
	"testing"

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
	want := conversionCRD{name: "gadgets.conversion.example.com", kind: "Gadget", namespaced: true,
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
