package v1

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// Resource is the WebApp resource as the CRD declares it.
var Resource = typed.Resource{Group: "example.ctrlkit.dev", Version: "v1", Resource: "webapps", Kind: "WebApp", Namespaced: true}

// SchemeGroupVersion is the WebApp's group and version, by the name
// generated code looks for (the apply configurations' ForKind).
var SchemeGroupVersion = Resource.GroupVersion()

// Kind is the WebApp's kind, as owner references name it.
var Kind schema.GroupVersionKind = Resource.GroupVersionKind()

// Condition types of a WebApp's status.
const (
	// Available is True while the WebApp's Deployment has the minimum
	// number of pods available.
	Available = "Available"
	// Progressing is True while a rollout is under way, False once it is
	// complete or cannot proceed (its reason says which).
	Progressing = "Progressing"
)

// WebApp runs an image as a Deployment behind a Service, both named like
// the WebApp.
//
// +genclient
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Repository",type=string,JSONPath=`.spec.image.repository`
// +kubebuilder:printcolumn:name="Tag",type=string,JSONPath=`.spec.image.tag`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type WebApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   WebAppSpec   `json:"spec"`
	Status WebAppStatus `json:"status,omitempty"`
}

// WebAppSpec is what the user wants.
type WebAppSpec struct {
	// Image is the container image.
	// +required
	Image Image `json:"image"`
	// Replicas is the number of pods; the API server defaults it to 1. A
	// pointer, so that a client leaving it out gets the default rather
	// than 0.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	Replicas *int32 `json:"replicas,omitempty"`
	// ContainerPort is the container's port, which the Service exposes;
	// the API server defaults it to 8080. (v1alpha1's spec.port.)
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +kubebuilder:default=8080
	ContainerPort int32 `json:"containerPort,omitempty"`
}

// Image is a container image reference in two parts, as Helm charts
// spell it: repository[:tag], or repository@digest when Tag is a digest.
type Image struct {
	// Repository is the image without tag or digest, with its registry if
	// not Docker Hub's (registry.example:5000/team/app). Its last path
	// element has no colon, and it has no @.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:Pattern=`^([^@/]*/)*[^@:/]+$`
	Repository string `json:"repository"`
	// Tag is a tag (1.27) or a digest (sha256:...); empty pulls latest.
	// +kubebuilder:validation:Pattern=`^([A-Za-z0-9_][A-Za-z0-9_.-]{0,127}|[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})$`
	Tag string `json:"tag,omitempty"`
}

// Reference is the image as a container's image field spells it:
// repository:tag, repository@digest, or the repository alone.
func (i Image) Reference() string {
	switch {
	case i.Tag == "":
		return i.Repository
	case strings.Contains(i.Tag, ":"): // a digest, algorithm:hex
		return i.Repository + "@" + i.Tag
	default:
		return i.Repository + ":" + i.Tag
	}
}

// WebAppStatus is what the operator observed.
type WebAppStatus struct {
	// ObservedGeneration is the metadata.generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Replicas and AvailableReplicas are the Deployment's.
	Replicas          int32 `json:"replicas,omitempty"`
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`
	// Conditions are Available and Progressing.
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// AddToScheme registers WebApp and its list in scheme. Event recorders
// need it: they look an object's kind up in client-go's scheme.Scheme.
func AddToScheme(scheme *runtime.Scheme) error {
	gv := Resource.GroupVersion()
	scheme.AddKnownTypeWithName(gv.WithKind(Resource.Kind), &WebApp{})
	scheme.AddKnownTypeWithName(gv.WithKind(Resource.Kind+"List"), &typed.List[*WebApp]{})
	metav1.AddToGroupVersion(scheme, gv)
	return nil
}
