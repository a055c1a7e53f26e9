// Command crdconversion adds the conversion webhook settings to CRDs that
// controller-gen wrote: controller-gen (v0.23) generates every version of
// a kind and marks the storage version, but has no marker for
// spec.conversion, which kubebuilder adds with a kustomize patch. This is
// that patch, as a go generate step after controller-gen:
//
//	crdconversion -service=namespace/name -path=/convert file.yaml...
//
// Each file, one CRD as controller-gen writes it, gets strategy Webhook
// calling the Service's port 443 at path, with ConversionReview v1, and is
// written back in controller-gen's own format (sorted keys), so that only
// spec.conversion differs. The caBundle is left out: the operator's
// self-managed certificates write it.
package main
