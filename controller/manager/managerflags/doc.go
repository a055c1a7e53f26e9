// Package managerflags is the process plumbing of a controller-manager
// binary, the part every operator repeats: the API client's flags with kube-controller-manager's spellings,
// the manager's own flags (manager.Options.BindServerFlags and
// BindLeaderElectionFlags), klog's flags as kube-controller-manager shows
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
// A binary's main is Main(name, run); run parses its own options, which
// embed [Options] and add the operator's flags, and calls [Run]. Every
// example in ctrlkit's examples/ is built this way.
package managerflags
