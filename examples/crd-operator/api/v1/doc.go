// Package v1 is the WebApp API, example.ctrlkit.dev/v1: the Go types, with
// kubebuilder markers, and a typed.Resource naming them. It is the hub of
// the WebApp's versions and the version stored in etcd
// (+kubebuilder:storageversion); v1alpha1 is still served, and the
// operator's conversion webhook converts between the two (package
// ../../convert). The operator reads and writes only v1.
//
// What changed from v1alpha1: spec.port is spec.containerPort, and
// spec.image, one string, is spec.image.repository and spec.image.tag.
//
// As for v1alpha1, the markers are the source of truth: `go generate` (see
// ../../generate.go) writes the deep copies (zz_generated.deepcopy.go), the
// CustomResourceDefinition with both versions
// (../../manifests/example.ctrlkit.dev_webapps.yaml) and the apply
// configurations (../../applyconfiguration/api/v1).
//
// +groupName=example.ctrlkit.dev
// +kubebuilder:object:generate=true
package v1
