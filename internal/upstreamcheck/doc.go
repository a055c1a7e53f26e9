// Package upstreamcheck holds tests that compare ctrlkit's re-implementations
// with the kube-controller-manager code they must agree with, byte for byte.
//
// It is a separate module so that k8s.io/kubernetes (and its many
// dependencies) never enter the dependency graph of ctrlkit itself. Run it
// with:
//
//	cd internal/upstreamcheck && go test ./...
package upstreamcheck
