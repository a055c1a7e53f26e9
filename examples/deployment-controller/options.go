package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
	"github.com/ctrlkit/ctrlkit/examples/internal/otlptracing"
)

// component names the process in its user agent, events and Lease.
const component = "ctrlkit-deployment-controller"

// options are the command's flags.
type options struct {
	managerflags.Options
	// Tracing is --otlp-endpoint: where the spans of reconciles go.
	Tracing otlptracing.Options
	// ConcurrentDeploymentSyncs is the number of workers.
	ConcurrentDeploymentSyncs int
	// Debounce and DebounceMaxWait are controller.Options'.
	Debounce, DebounceMaxWait time.Duration
	// NamespaceLanes is deployment.Options': one fairness lane per
	// namespace, or first in, first out as upstream.
	NamespaceLanes bool
}

// parseOptions parses args (without the program name) with
// kube-controller-manager's defaults. Usage and parse errors go to output;
// -h and --help return flag.ErrHelp.
func parseOptions(args []string, output io.Writer) (*options, error) {
	o := &options{
		Options:                   managerflags.Defaults(component),
		ConcurrentDeploymentSyncs: 5,
		NamespaceLanes:            true,
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	o.Tracing.AddFlags(fss.FlagSet("tracing"))
	// kube-controller-manager's own section and wording.
	fss.FlagSet("deployment controller").IntVar(&o.ConcurrentDeploymentSyncs, "concurrent-deployment-syncs", o.ConcurrentDeploymentSyncs,
		"The number of deployment objects that are allowed to sync concurrently. Larger number = more responsive deployments, but more CPU (and network) load")
	// --shard-ring: the manager's ring, whose Leases live in the leader
	// election namespace, with the leader election's timings, which also
	// bound each reconcile (sharding.ControllerOptions).
	o.Manager.Sharding.BindFlags(fss.FlagSet("sharding"))
	fss.FlagSet("deployment controller").DurationVar(&o.Debounce, "debounce", o.Debounce,
		"If positive, reconcile a Deployment only once its events have been quiet for this long, so that a burst of events gives one sync: fewer syncs and writes for this much more latency. 0 syncs at each event, as kube-controller-manager does.")
	fss.FlagSet("deployment controller").DurationVar(&o.DebounceMaxWait, "debounce-max-wait", o.DebounceMaxWait,
		"With --debounce, the longest a Deployment under a constant stream of events waits for its sync. 0 means 10 times --debounce.")
	fss.FlagSet("deployment controller").BoolVar(&o.NamespaceLanes, "namespace-lanes", o.NamespaceLanes,
		"Serve each namespace's Deployments in a fairness lane of its own, so that a mass update in one namespace does not make another namespace's Deployments wait behind it; the decisions for each Deployment are the same. false serves them first in, first out, as kube-controller-manager does.")
	if err := managerflags.Parse("deployment-controller", &fss, args, output); err != nil {
		return nil, err
	}
	var errs []error
	if o.ConcurrentDeploymentSyncs < 1 {
		errs = append(errs, fmt.Errorf("--concurrent-deployment-syncs must be at least 1, got %d", o.ConcurrentDeploymentSyncs))
	}
	switch {
	case o.Debounce < 0 || o.DebounceMaxWait < 0:
		errs = append(errs, fmt.Errorf("--debounce (%s) and --debounce-max-wait (%s) must not be negative", o.Debounce, o.DebounceMaxWait))
	case o.DebounceMaxWait > 0 && o.DebounceMaxWait < o.Debounce:
		errs = append(errs, fmt.Errorf("--debounce-max-wait (%s) must not be below --debounce (%s)", o.DebounceMaxWait, o.Debounce))
	case o.DebounceMaxWait > 0 && o.Debounce == 0:
		errs = append(errs, errors.New("--debounce-max-wait needs --debounce"))
	}
	errs = append(errs, o.Validate(), o.Tracing.Validate())
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("invalid flags: %w", err)
	}
	return o, nil
}

// controllerOptions are the Deployment controller's options that follow
// from the flags. Sharded, deployment.NewController adds the ring's gate
// and reconcile timeout.
func (o *options) controllerOptions() controller.Options[string] {
	return controller.Options[string]{
		Workers:         o.ConcurrentDeploymentSyncs,
		Debounce:        o.Debounce,
		DebounceMaxWait: o.DebounceMaxWait,
	}
}

// Traced returns the --otlp-endpoint flag and the manager options its
// TracerProvider goes into.
func (o *options) Traced() (*otlptracing.Options, *manager.Options) {
	return &o.Tracing, &o.Manager
}
