// Package v1 is the Greeting API, example.com/v1.
//
// +groupName=example.com
// +kubebuilder:object:generate=true
package v1
