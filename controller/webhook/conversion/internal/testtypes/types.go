// Package testtypes holds the versions of a Widget for the tests of
// packages conversion and conversiontest, as a user writes them: a v1 hub;
// a v1alpha1 spoke with functions, in which replicas was named size, the
// image's repository and tag were one string, and paused did not exist
// (it is carried in an annotation); and a v1beta1 spoke that converts
// itself with methods.
package testtypes

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Hub is the hub's group, version and kind.
var Hub = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

// PausedAnnotation carries v1's spec.paused on v1alpha1, which has no such
// field.
const PausedAnnotation = "example.com/paused"

// WidgetV1 is the hub.
type WidgetV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetV1Spec `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}

type WidgetV1Spec struct {
	Replicas int32    `json:"replicas"`
	Image    ImageRef `json:"image"`
	Paused   bool     `json:"paused,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

// ImageRef is v1alpha1's image split in two.
type ImageRef struct {
	Repository string `json:"repository"`
	Tag        string `json:"tag,omitempty"`
}

type WidgetStatus struct {
	ReadyReplicas int32              `json:"readyReplicas,omitempty"`
	Conditions    []metav1.Condition `json:"conditions,omitempty"`
}

// Hub marks WidgetV1 as the hub, for v1beta1's methods.
func (*WidgetV1) Hub() {}

// WidgetV1alpha1 is the first version.
type WidgetV1alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetV1alpha1Spec `json:"spec"`
	Status            WidgetStatus       `json:"status,omitempty"`
}

type WidgetV1alpha1Spec struct {
	// Size is v1's replicas.
	Size int32 `json:"size"`
	// Image is repository[:tag].
	Image string   `json:"image"`
	Tags  []string `json:"tags,omitempty"`
}

// WidgetV1beta1 is the second version, which converts itself.
type WidgetV1beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetV1Spec `json:"spec"`
	Status            WidgetStatus `json:"status,omitempty"`
}
