// Package managerflags holds the process plumbing the example binaries
// share: the API client's flags with kube-controller-manager's spellings,
// the manager's own flags (bound by manager.Options.BindFlags), the
// conversion into a rest.Config, manager.Options and an event recorder, and
// Main and Run, the bodies of each binary's main and run.
//
// It is internal to the examples: an operator author copies it, or writes
// the twenty lines they need, rather than importing it.
package managerflags
