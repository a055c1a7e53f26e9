// Command conformance runs Kubernetes' own Deployment conformance specs
// (the "[sig-apps] Deployment" specs of k8s.io/kubernetes/test/e2e, at the
// version internal/cpbuild pins) twice on a local control plane: once
// against examples/deployment-controller, once against
// kube-controller-manager's Deployment controller. It prints one row per
// spec, with pass, fail or skip and the duration on each side, and exits
// non-zero when ours fails a spec that upstream passes.
//
// The e2e test binary is built from the Go module proxy on first use, in a
// scratch module made of internal/cpbuild's go.mod (its staging replaces
// included), and cached next to the control plane's binaries under a key
// made of that go.mod and go.sum. `make conformance` runs it from the
// repository root; it is not part of `make test`.
package main
