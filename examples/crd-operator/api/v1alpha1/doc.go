// Package v1alpha1 is the WebApp API, example.ctrlkit.dev/v1alpha1: the Go
// types, with kubebuilder markers, and a typed.Resource naming them.
// typed.NewClient and typed.NewSharedInformer need only these types and
// [Resource].
//
// It is the WebApp's first version, still served as a spoke of v1 (the
// hub, stored in etcd): the API server converts between them with the
// operator's conversion webhook (package ../../convert). The operator
// itself uses only v1; these types are kept for the webhook and for
// clients that still write v1alpha1.
//
// The markers are the source of truth: `go generate` (see ../../generate.go)
// runs controller-gen, which writes the deep copies
// (zz_generated.deepcopy.go) and the CustomResourceDefinition
// (../../manifests/example.ctrlkit.dev_webapps.yaml) from them. The CRD's
// OpenAPI schema is the validation (the API server refuses a WebApp without
// an image, with negative replicas or a port out of range) and the
// defaulting (replicas 1, port 8080); these types do not repeat it.
//
// The same `go generate` runs applyconfiguration-gen, which writes the
// WebApp's apply configurations (../../applyconfiguration/api/v1alpha1)
// for server-side apply. WebApp's +genclient marker asks it for the root
// one (the WebApp constructor, with name and namespace); no clientset is
// generated, and [SchemeGroupVersion] is the name that code looks for.
//
// +groupName=example.ctrlkit.dev
// +kubebuilder:object:generate=true
package v1alpha1
