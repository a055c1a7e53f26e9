// Package v1alpha1 is the WebApp API, example.ctrlkit.dev/v1alpha1: the Go
// types of the CustomResourceDefinition in ../../manifests/crd.yaml, with
// hand-written deep copies. Nothing here is generated: typed.NewClient and
// typed.NewSharedInformer need only these types and [Resource].
//
// The CRD's OpenAPI schema is the validation (the API server refuses a
// WebApp without an image, with negative replicas or a port out of range)
// and the defaulting (replicas 1, port 8080); these types do not repeat it.
package v1alpha1
