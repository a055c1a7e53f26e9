package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
	"github.com/ctrlkit/ctrlkit/examples/internal/otlptracing"
)

// component names the process in its user agent and Lease.
const component = "ctrlkit-controller-manager"

// knownControllers are the names --controllers accepts, in start order.
var knownControllers = []string{"deployment", "configrollout"}

// options are the command's flags.
type options struct {
	managerflags.Options
	// Tracing is --otlp-endpoint: where the spans of reconciles go.
	Tracing otlptracing.Options
	// Controllers is --controllers as given.
	Controllers               []string
	ConcurrentDeploymentSyncs int
	ConcurrentConfigSyncs     int
}

// parseOptions parses args (without the program name). Usage and parse
// errors go to output; -h and --help return flag.ErrHelp.
func parseOptions(args []string, output io.Writer) (*options, error) {
	o := &options{
		Options:                   managerflags.Defaults(component),
		Controllers:               []string{"*"},
		ConcurrentDeploymentSyncs: 5,
		ConcurrentConfigSyncs:     2,
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	o.Tracing.AddFlags(fss.FlagSet("tracing"))
	// The sections of kube-controller-manager's --help.
	fss.FlagSet("generic").StringSliceVar(&o.Controllers, "controllers", o.Controllers,
		`A list of controllers to enable. "*" enables all; "foo" enables foo; "-foo" disables foo. Known: `+strings.Join(knownControllers, ", "))
	fss.FlagSet("deployment controller").IntVar(&o.ConcurrentDeploymentSyncs, "concurrent-deployment-syncs", o.ConcurrentDeploymentSyncs, "The number of Deployments the Deployment controller syncs concurrently.")
	fss.FlagSet("configrollout controller").IntVar(&o.ConcurrentConfigSyncs, "concurrent-configrollout-syncs", o.ConcurrentConfigSyncs, "The number of Deployments configrollout syncs concurrently.")
	if err := managerflags.Parse("embedded-manager", &fss, args, output); err != nil {
		return nil, err
	}
	var errs []error
	if _, err := o.enabled(); err != nil {
		errs = append(errs, err)
	}
	for name, n := range map[string]int{"--concurrent-deployment-syncs": o.ConcurrentDeploymentSyncs, "--concurrent-configrollout-syncs": o.ConcurrentConfigSyncs} {
		if n < 1 {
			errs = append(errs, fmt.Errorf("%s must be at least 1, got %d", name, n))
		}
	}
	errs = append(errs, o.Validate(), o.Tracing.Validate())
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid flags: %w", err)
	}
	return o, nil
}

// enabled resolves --controllers the way kube-controller-manager does: a
// name is on if listed, off if listed with "-", and otherwise on only if
// "*" is listed.
func (o *options) enabled() ([]string, error) {
	star := false
	explicit := map[string]bool{}
	for _, item := range o.Controllers {
		item = strings.TrimSpace(item)
		name, off := strings.CutPrefix(item, "-")
		switch {
		case item == "*":
			star = true
		case !slices.Contains(knownControllers, name):
			return nil, fmt.Errorf("--controllers: unknown controller %q (known: %s)", item, strings.Join(knownControllers, ", "))
		default:
			explicit[name] = !off
		}
	}
	var on []string
	for _, name := range knownControllers {
		if enabled, ok := explicit[name]; ok && enabled || !ok && star {
			on = append(on, name)
		}
	}
	if len(on) == 0 {
		return nil, errors.New("--controllers enables no controller")
	}
	return on, nil
}

// Traced returns the --otlp-endpoint flag and the manager options its
// TracerProvider goes into.
func (o *options) Traced() (*otlptracing.Options, *manager.Options) {
	return &o.Tracing, &o.Manager
}
