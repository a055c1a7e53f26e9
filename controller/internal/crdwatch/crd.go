package crdwatch

import (
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// Resource is the API of CustomResourceDefinitions.
var Resource = typed.Resource{Group: "apiextensions.k8s.io", Version: "v1",
	Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}

// CRD is the part of an apiextensions.k8s.io/v1 CustomResourceDefinition
// that says what it serves.
type CRD struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CRDSpec   `json:"spec"`
	Status            CRDStatus `json:"status,omitempty"`
}

// CRDSpec is the part of the spec read here.
type CRDSpec struct {
	Group    string       `json:"group"`
	Names    CRDNames     `json:"names"`
	Versions []CRDVersion `json:"versions"`
}

// CRDNames holds the resource's plural name, its path in the API.
type CRDNames struct {
	Plural string `json:"plural"`
}

// CRDVersion is one version and whether it is served.
type CRDVersion struct {
	Name   string `json:"name"`
	Served bool   `json:"served"`
}

// CRDStatus holds the conditions.
type CRDStatus struct {
	Conditions []CRDCondition `json:"conditions,omitempty"`
}

// CRDCondition is one condition, such as Established.
type CRDCondition struct {
	Type   string `json:"type"`
	Status string `json:"status"`
}

// DeepCopyObject copies the CRD, for the informer's store.
func (c *CRD) DeepCopyObject() runtime.Object {
	out := *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec.Versions = slices.Clone(c.Spec.Versions)
	out.Status.Conditions = slices.Clone(c.Status.Conditions)
	return &out
}

// Name is the name of the CRD that defines r: "<plural>.<group>".
func Name(r schema.GroupResource) string { return r.Resource + "." + r.Group }

// Serves reports whether c defines r and the API server serves it: c is
// Established and serves r's version. A CRD being deleted still serves
// until it is gone, so that controllers can remove their finalizers from
// the objects the deletion waits for.
func (c *CRD) Serves(r schema.GroupVersionResource) bool {
	if c.Spec.Group != r.Group || c.Spec.Names.Plural != r.Resource {
		return false
	}
	established := slices.ContainsFunc(c.Status.Conditions, func(cond CRDCondition) bool {
		return cond.Type == "Established" && cond.Status == string(metav1.ConditionTrue)
	})
	return established && slices.ContainsFunc(c.Spec.Versions, func(v CRDVersion) bool {
		return v.Name == r.Version && v.Served
	})
}
