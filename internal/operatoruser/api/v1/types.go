package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/typed"
)

// Resource is the Greeting resource as the generated CRD declares it.
var Resource = typed.Resource{Group: "example.com", Version: "v1", Resource: "greetings", Kind: "Greeting", Namespaced: true}

// Greeting asks for a greeting of Name, Times times.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Greeting",type=string,JSONPath=`.status.greeting`
type Greeting struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec   GreetingSpec   `json:"spec"`
	Status GreetingStatus `json:"status,omitempty"`
}

// GreetingSpec is what the user wants.
type GreetingSpec struct {
	// Name is who is greeted.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	Name string `json:"name"`
	// Times is how often; the API server defaults it to 1.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=3
	// +kubebuilder:default=1
	Times int32 `json:"times,omitempty"`
	// Selector is any label selector; the generated schema validates it
	// as metav1.LabelSelector.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
}

// GreetingStatus is what the greeter did.
type GreetingStatus struct {
	// Greeting is the text, once greeted.
	Greeting string `json:"greeting,omitempty"`
	// ObservedGeneration is the metadata.generation Greeting answers.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}
