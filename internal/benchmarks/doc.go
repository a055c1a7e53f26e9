// Package benchmarks measures ctrlkit side by side with its peers: client-go's
// hand-wired workqueue loop and controller-runtime. It is a separate module so
// that controller-runtime never enters the library's dependency graph.
package benchmarks
