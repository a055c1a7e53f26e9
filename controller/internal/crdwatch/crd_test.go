package crdwatch

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestServes(t *testing.T) {
	r := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	crd := func(version string, served bool, established string) *CRD {
		return &CRD{
			Spec: CRDSpec{Group: "example.com", Names: CRDNames{Plural: "widgets"},
				Versions: []CRDVersion{{Name: "v1beta1", Served: true}, {Name: version, Served: served}}},
			Status: CRDStatus{Conditions: []CRDCondition{{Type: "NamesAccepted", Status: "True"}, {Type: "Established", Status: established}}},
		}
	}
	for _, tc := range []struct {
		name string
		crd  *CRD
		want bool
	}{
		{"established and served", crd("v1", true, "True"), true},
		{"not established yet", crd("v1", true, "False"), false},
		{"version not served", crd("v1", false, "True"), false},
		{"version not defined", crd("v2", true, "True"), false},
		{"another resource", &CRD{Spec: CRDSpec{Group: "example.com", Names: CRDNames{Plural: "gadgets"},
			Versions: []CRDVersion{{Name: "v1", Served: true}}},
			Status: CRDStatus{Conditions: []CRDCondition{{Type: "Established", Status: "True"}}}}, false},
	} {
		if got := tc.crd.Serves(r); got != tc.want {
			t.Errorf("%s: Serves = %v, want %v", tc.name, got, tc.want)
		}
	}
	if got := Name(r.GroupResource()); got != "widgets.example.com" {
		t.Errorf("Name = %q", got)
	}
}

func TestDeepCopyDoesNotShare(t *testing.T) {
	c := &CRD{Spec: CRDSpec{Versions: []CRDVersion{{Name: "v1", Served: true}}}}
	c.Labels = map[string]string{"a": "b"}
	out := c.DeepCopyObject().(*CRD)
	out.Spec.Versions[0].Served = false
	out.Labels["a"] = "c"
	if !c.Spec.Versions[0].Served || c.Labels["a"] != "b" {
		t.Error("the copy shares the original's slices or maps")
	}
}
