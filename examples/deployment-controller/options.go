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
	// ShardRing, when set, names the ring of replicas this one joins to
	// split the Deployments by namespace (package controller/sharding);
	// its Leases live in the leader election namespace, with the leader
	// election's timings, which also bound each reconcile
	// (shardReconcileTimeout).
	ShardRing string
	// Debounce and DebounceMaxWait are controller.Options'.
	Debounce, DebounceMaxWait time.Duration
}

// parseOptions parses args (without the program name) with
// kube-controller-manager's defaults. Usage and parse errors go to output;
// -h and --help return flag.ErrHelp.
func parseOptions(args []string, output io.Writer) (*options, error) {
	o := &options{
		Options:                   managerflags.Defaults(component),
		ConcurrentDeploymentSyncs: 5,
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	o.Tracing.AddFlags(fss.FlagSet("tracing"))
	// kube-controller-manager's own section and wording.
	fss.FlagSet("deployment controller").IntVar(&o.ConcurrentDeploymentSyncs, "concurrent-deployment-syncs", o.ConcurrentDeploymentSyncs,
		"The number of deployment objects that are allowed to sync concurrently. Larger number = more responsive deployments, but more CPU (and network) load")
	fss.FlagSet("sharding").StringVar(&o.ShardRing, "shard-ring", o.ShardRing,
		"If set, run sharded: join the ring of replicas of this name (a Lease each, in --leader-elect-resource-namespace), which split Deployments by namespace; every replica runs the controller for its share, and caches only that. Each reconcile then times out after 4/5 of --leader-elect-lease-duration minus --leader-elect-renew-deadline, so that it ends before another replica may take its namespace over.")
	fss.FlagSet("deployment controller").DurationVar(&o.Debounce, "debounce", o.Debounce,
		"If positive, reconcile a Deployment only once its events have been quiet for this long, so that a burst of events gives one sync: fewer syncs and writes for this much more latency. 0 syncs at each event, as kube-controller-manager does.")
	fss.FlagSet("deployment controller").DurationVar(&o.DebounceMaxWait, "debounce-max-wait", o.DebounceMaxWait,
		"With --debounce, the longest a Deployment under a constant stream of events waits for its sync. 0 means 10 times --debounce.")
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
// from the flags: its workers and, when sharded, a reconcile timeout.
func (o *options) controllerOptions() controller.Options[string] {
	copts := controller.Options[string]{
		Workers:         o.ConcurrentDeploymentSyncs,
		Debounce:        o.Debounce,
		DebounceMaxWait: o.DebounceMaxWait,
	}
	if o.ShardRing != "" {
		copts.ReconcileTimeout = shardReconcileTimeout(o.Manager.LeaderElection)
	}
	return copts
}

// shardReconcileTimeout bounds a sharded reconcile. A replica that loses
// the API server stops starting reconciles RenewDeadline after its last
// renewal, and the others take its namespaces over LeaseDuration after it:
// a reconcile admitted just before the fence must have returned by then,
// or it may overlap the new owner's reconcile of the same key. The
// timeout is four fifths of LeaseDuration − RenewDeadline (4 s with the
// defaults), leaving the rest for the reconcile to return once its
// context has ended.
func shardReconcileTimeout(le manager.LeaderElection) time.Duration {
	return (le.LeaseDuration - le.RenewDeadline) * 4 / 5
}

// Traced returns the --otlp-endpoint flag and the manager options its
// TracerProvider goes into.
func (o *options) Traced() (*otlptracing.Options, *manager.Options) {
	return &o.Tracing, &o.Manager
}
