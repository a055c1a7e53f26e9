// Package tools pins the code generators ctrlkit's examples run with
// `go generate` (controller-gen, from sigs.k8s.io/controller-tools, and
// applyconfiguration-gen, from k8s.io/code-generator at the version of
// ctrlkit's k8s.io libraries, as tool directives in this module's go.mod),
// so that the root go.mod does not carry them, and checks that the
// generated files committed in the repository are what the generators
// write today.
//
// A directory's //go:generate line runs the pinned tool with
//
//	go tool -modfile=<path to this go.mod> controller-gen ...
//
// or, in a module of its own that lists the tool (internal/operatoruser),
// go tool controller-gen.
package tools
