// Package crdwatch follows the CustomResourceDefinitions of a cluster and
// says which custom resources are served: a CRD that is Established and
// serves the version. The manager's Optional parts start and stop by it.
//
// CRDs are read as a small struct of the fields needed (spec.group,
// spec.names.plural, spec.versions[].name and served, status.conditions)
// through package typed, so that the root module does not need
// k8s.io/apiextensions-apiserver for them.
package crdwatch
