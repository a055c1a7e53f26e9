package sharding

import (
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

// Options configure a Ring member. Only Name, Lease.Client and
// Lease.Namespace are required.
type Options struct {
	// Name is the ring's name: the value of RingLabel on its members'
	// Leases. Every replica of one controller-manager uses the same Name.
	// Required; a valid label value.
	Name string
	// Lease is this member's Lease: its client and namespace (required),
	// its ID and timings (see lease.Config for the defaults). The member's
	// Lease is named Name + "-" + ID, which must be a valid object name;
	// the ID must not contain a comma. RenewDeadline is when a member that
	// cannot renew stops admitting keys, LeaseDuration when the others
	// take its share over: the difference bounds each reconcile (see
	// Ring.ReconcileTimeout). A member runs one round (renew, list,
	// decide) every RetryPeriod.
	Lease lease.Config
	// DrainTimeout bounds how long a member waits for the in-flight
	// reconciles of keys it lost. Past it, the member stops renewing its
	// Lease and Run returns ErrDrainTimeout: the others take its share once
	// the Lease has expired, as after a crash. Zero means 30 s.
	DrainTimeout time.Duration

	// Keys lists the shard keys that exist, with their weights: the ring
	// cuts the hash space so that each member's share of them is equal,
	// within Hysteresis. It returns false while it does not know yet (a
	// cache not synced): the ring then keeps its cuts. Nil means the
	// cluster's namespaces, each of weight 1, from an informer the ring
	// runs (it needs list and watch on namespaces). Supply it to shard
	// cluster-scoped names, or to weigh namespaces by what they hold.
	Keys func() ([]Key, bool)
	// Hysteresis is the imbalance (largest share over the mean) the ring
	// tolerates before it moves keys. Zero means 1.15; it must be at least 1.
	Hysteresis float64

	// Clock drives rounds and lease expiry. Nil means the real clock.
	Clock clock.WithTicker
	// Logger receives the ring's logs. Zero means klog.Background().
	Logger logr.Logger
	// Registry receives the ring's metrics (see the package
	// documentation). Nil means none.
	Registry prometheus.Registerer
}
