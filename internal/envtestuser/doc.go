// Package envtestuser is a module of its own that uses ctrlkit's envtest
// package as an operator author's module would: it requires
// github.com/ctrlkit/ctrlkit (replaced by this checkout) and holds only
// tests. They start an API-server-only environment shared by the package
// (envtest.RunMain) with a CRD installed, a Full one whose Deployment's pods
// become Ready, one that runs the binaries of a $KUBEBUILDER_ASSETS
// directory, and prove that nothing is left running after a failed or
// interrupted test.
//
// Run them with
//
//	cd internal/envtestuser && go test -count=1 ./...
package envtestuser
