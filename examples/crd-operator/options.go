package main

import (
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/validation"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
)

// component names the process in its user agent, events and Lease.
const component = "webapp-operator"

// options are the command's flags.
type options struct {
	managerflags.Options
	// RegistryNamespace holds one ConfigMap per WebApp.
	RegistryNamespace string
	// ConcurrentSyncs is the number of workers.
	ConcurrentSyncs int
}

// parseOptions parses args (without the program name). Usage and parse
// errors go to output; -h and --help return flag.ErrHelp.
func parseOptions(args []string, output io.Writer) (*options, error) {
	o := &options{Options: managerflags.Defaults(component), RegistryNamespace: "webapp-registry", ConcurrentSyncs: 2}
	o.Manager.Lease.Namespace = "ctrlkit-system"
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	fs := fss.FlagSet("webapp operator")
	fs.StringVar(&o.RegistryNamespace, "registry-namespace", o.RegistryNamespace, "The namespace of the registry: one ConfigMap per WebApp, deleted with it.")
	fs.IntVar(&o.ConcurrentSyncs, "concurrent-syncs", o.ConcurrentSyncs, "The number of WebApps reconciled concurrently.")
	// --shard-ring: replicas split the WebApps by namespace (run.go).
	o.Manager.Sharding.BindFlags(fss.FlagSet("sharding"))
	if err := managerflags.Parse(component, &fss, args, output); err != nil {
		return nil, err
	}
	var errs []error
	if o.ConcurrentSyncs < 1 {
		errs = append(errs, fmt.Errorf("--concurrent-syncs must be at least 1, got %d", o.ConcurrentSyncs))
	}
	for _, msg := range validation.IsDNS1123Label(o.RegistryNamespace) {
		errs = append(errs, fmt.Errorf("--registry-namespace %q: %s", o.RegistryNamespace, msg))
	}
	errs = append(errs, o.Validate())
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid flags: %w", err)
	}
	return o, nil
}
