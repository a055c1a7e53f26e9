// Package v1alpha1 is the WebApp API, example.ctrlkit.dev/v1alpha1: the Go
// types, with kubebuilder markers, and a typed.Resource naming them.
// typed.NewClient and typed.NewSharedInformer need only these types and
// [Resource].
//
// The markers are the source of truth: `go generate` (see ../../generate.go)
// runs controller-gen, which writes the deep copies
// (zz_generated.deepcopy.go) and the CustomResourceDefinition
// (../../manifests/example.ctrlkit.dev_webapps.yaml) from them. The CRD's
// OpenAPI schema is the validation (the API server refuses a WebApp without
// an image, with negative replicas or a port out of range) and the
// defaulting (replicas 1, port 8080); these types do not repeat it.
//
// +groupName=example.ctrlkit.dev
// +kubebuilder:object:generate=true
package v1alpha1
