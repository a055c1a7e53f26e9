// Package manifesttest checks the examples' Kubernetes manifests in tests:
// it decodes them strictly, checks that the bindings hang together, and
// checks RBAC rules against the requests a controller really made on a fake
// clientset, both ways: every request allowed, every rule used.
package manifesttest
