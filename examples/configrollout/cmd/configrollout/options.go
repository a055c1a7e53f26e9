package main

import (
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/validation"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
	"github.com/ctrlkit/ctrlkit/examples/internal/otlptracing"
)

// component names the process in its user agent, events and Lease.
const component = "configrollout"

// options are the command's flags.
type options struct {
	managerflags.Options
	// Tracing is --otlp-endpoint: where the spans of reconciles go.
	Tracing otlptracing.Options
	// Namespace limits the controller to one namespace; empty means all.
	Namespace string
	// ConcurrentSyncs is the number of workers.
	ConcurrentSyncs int
}

// parseOptions parses args (without the program name). Usage and parse
// errors go to output; -h and --help return flag.ErrHelp.
func parseOptions(args []string, output io.Writer) (*options, error) {
	o := &options{Options: managerflags.Defaults(component), ConcurrentSyncs: 2}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	o.Tracing.AddFlags(fss.FlagSet("tracing"))
	fs := fss.FlagSet("configrollout controller")
	fs.StringVar(&o.Namespace, "namespace", o.Namespace, "Watch only this namespace (Deployments, ConfigMaps and Secrets). Empty means every namespace.")
	fs.IntVar(&o.ConcurrentSyncs, "concurrent-syncs", o.ConcurrentSyncs, "The number of Deployments reconciled concurrently.")
	if err := managerflags.Parse("configrollout", &fss, args, output); err != nil {
		return nil, err
	}
	var errs []error
	if o.ConcurrentSyncs < 1 {
		errs = append(errs, fmt.Errorf("--concurrent-syncs must be at least 1, got %d", o.ConcurrentSyncs))
	}
	if o.Namespace != "" {
		for _, msg := range validation.IsDNS1123Label(o.Namespace) {
			errs = append(errs, fmt.Errorf("--namespace %q: %s", o.Namespace, msg))
		}
	}
	errs = append(errs, o.Validate(), o.Tracing.Validate())
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid flags: %w", err)
	}
	return o, nil
}

// Traced returns the --otlp-endpoint flag and the manager options its
// TracerProvider goes into.
func (o *options) Traced() (*otlptracing.Options, *manager.Options) {
	return &o.Tracing, &o.Manager
}
