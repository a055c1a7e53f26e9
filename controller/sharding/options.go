package sharding

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// Defaults for zero Options fields: the leader election timings of
// kube-controller-manager, and a drain bound of two lease durations.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
	DefaultDrainTimeout  = 30 * time.Second
)

// Options configure a Ring member.
type Options struct {
	// Client reads and writes the members' Leases. Required.
	Client kubernetes.Interface
	// Namespace holds the members' Leases. Required.
	Namespace string
	// Name is the ring's name: the value of RingLabel on its members'
	// Leases. Every replica of one controller-manager uses the same Name.
	// Required; a valid label value.
	Name string
	// ID identifies this member, unique among the ring's live members; its
	// Lease is named Name + "-" + ID, which must be a valid object name.
	// Empty means the host name (a pod's name) and a random suffix. Two
	// processes with one ID would share a Lease and a range: never reuse
	// an ID while its process may still run.
	ID string

	// LeaseDuration is how long a member's Lease lasts without a change:
	// the others take its range over that long after its last renewal.
	// Whole seconds, at least one. Zero means DefaultLeaseDuration.
	LeaseDuration time.Duration
	// RenewDeadline is how long after its last successful renewal a member
	// stops handing out keys (it fences itself). It must be below
	// LeaseDuration; the difference bounds how long an in-flight reconcile
	// of a member that lost contact may run before others may start its
	// keys. Zero means DefaultRenewDeadline.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between two rounds (renew, list, decide).
	// Zero means DefaultRetryPeriod.
	RetryPeriod time.Duration
	// DrainTimeout bounds how long a member waits for the in-flight
	// reconciles of keys it lost. Past it, the member stops renewing its
	// Lease and Run returns ErrDrainTimeout: the others then take its range
	// over once the Lease has expired, as after a crash. Zero means
	// DefaultDrainTimeout.
	DrainTimeout time.Duration

	// Keys lists the shard keys that exist, with their weights: the
	// coordinator cuts the hash space so that each member's share of them
	// is equal, within Hysteresis. It returns false while it does not know
	// yet (a cache not synced): the ring then keeps its assignment. Nil
	// means the namespaces of the cluster, each of weight 1, from an
	// informer the ring runs (it needs list and watch on namespaces).
	// Supply it to shard cluster-scoped names, or to weigh namespaces by
	// what they hold.
	Keys func() ([]Key, bool)
	// Hysteresis is the imbalance (largest share over the mean) the ring
	// tolerates before it moves keys; see Rebalance. Zero means
	// DefaultHysteresis.
	Hysteresis float64

	// Clock drives rounds and lease expiry. Nil means the real clock; tests
	// pass k8s.io/utils/clock/testing.FakeClock and call Sync by hand.
	Clock clock.WithTicker
	// Logger receives the ring's logs. Zero means klog.Background().
	Logger logr.Logger
	// Registry receives the ring's metrics (see the package
	// documentation). Nil means none.
	Registry prometheus.Registerer
}

func (o Options) withDefaults() (Options, error) {
	if o.LeaseDuration == 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.RenewDeadline == 0 {
		o.RenewDeadline = DefaultRenewDeadline
	}
	if o.RetryPeriod == 0 {
		o.RetryPeriod = DefaultRetryPeriod
	}
	if o.DrainTimeout == 0 {
		o.DrainTimeout = DefaultDrainTimeout
	}
	if o.Hysteresis == 0 {
		o.Hysteresis = DefaultHysteresis
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Logger.GetSink() == nil {
		o.Logger = klog.Background()
	}
	if o.ID == "" {
		host, err := os.Hostname()
		if err != nil {
			return o, fmt.Errorf("sharding: Options.ID is empty and the host name is unknown: %w", err)
		}
		o.ID = strings.ToLower(host) + "-" + rand.String(5)
	}
	var errs []error
	if o.Client == nil {
		errs = append(errs, errors.New("Options.Client is required"))
	}
	if o.Namespace == "" {
		errs = append(errs, errors.New("Options.Namespace is required"))
	}
	if msgs := validation.IsValidLabelValue(o.Name); o.Name == "" || len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("Options.Name %q must be a non-empty label value: %s", o.Name, strings.Join(msgs, "; ")))
	}
	if msgs := validation.IsDNS1123Subdomain(o.Name + "-" + o.ID); len(msgs) > 0 {
		errs = append(errs, fmt.Errorf("the Lease name %q (Name-ID) is not a valid object name: %s", o.Name+"-"+o.ID, strings.Join(msgs, "; ")))
	}
	if strings.Contains(o.ID, ",") {
		errs = append(errs, fmt.Errorf("Options.ID %q must not contain a comma", o.ID))
	}
	if o.LeaseDuration < time.Second || o.LeaseDuration%time.Second != 0 {
		errs = append(errs, fmt.Errorf("Options.LeaseDuration %s must be whole seconds, at least one", o.LeaseDuration))
	}
	if o.RenewDeadline <= 0 || o.RenewDeadline >= o.LeaseDuration {
		errs = append(errs, fmt.Errorf("Options.RenewDeadline %s must be positive and below LeaseDuration %s", o.RenewDeadline, o.LeaseDuration))
	}
	if o.RetryPeriod <= 0 || o.RetryPeriod >= o.RenewDeadline {
		errs = append(errs, fmt.Errorf("Options.RetryPeriod %s must be positive and below RenewDeadline %s", o.RetryPeriod, o.RenewDeadline))
	}
	if o.Hysteresis != 0 && o.Hysteresis < 1 {
		errs = append(errs, fmt.Errorf("Options.Hysteresis %g must be at least 1", o.Hysteresis))
	}
	if o.DrainTimeout < 0 {
		errs = append(errs, fmt.Errorf("Options.DrainTimeout %s must not be negative", o.DrainTimeout))
	}
	if len(errs) > 0 {
		return o, fmt.Errorf("sharding: invalid options: %w", errors.Join(errs...))
	}
	return o, nil
}
