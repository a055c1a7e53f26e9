// Package managerflags holds the process plumbing the example binaries
// share: kube-controller-manager's flag spellings for the API client and
// leader election, the manager's endpoints, and the conversion of those
// flags into a rest.Config, manager.Options and an event recorder.
//
// It is internal to the examples: an operator author copies it, or writes
// the twenty lines they need, rather than importing it.
package managerflags
