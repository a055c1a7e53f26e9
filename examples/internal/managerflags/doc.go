// Package managerflags holds the process plumbing the example binaries
// share: the API client's flags with kube-controller-manager's spellings,
// the manager's own flags (manager.Options.BindServerFlags and
// LeaderElection.BindFlags), klog's flags as kube-controller-manager shows
// them, the conversion into a rest.Config and manager.Options, and Main
// and Run, the bodies of each binary's main and run.
//
// Flags are spf13/pflag's, in the named sections of component-base's
// cliflag.NamedFlagSets, which kube-controller-manager's --help prints.
// Only k8s.io/component-base/cli/flag is used: its logs/api/v1 (the
// --logging-format family) would pull in OpenTelemetry, feature gates and
// component-base's global metrics registry, so the logging section is
// klog's -v and --vmodule.
//
// It is internal to the examples: an operator author copies it, or writes
// the twenty lines they need, rather than importing it.
package managerflags
