package lease

import (
	"time"

	"k8s.io/client-go/kubernetes"
)

// Defaults for zero Config fields: kube-controller-manager's leader election
// timings.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// Config is the identity and timings of one holder of a Lease. Every zero
// field has a default, so the zero Config is valid wherever the user of the
// Config supplies a client and a namespace.
//
// Invariants, checked when a Manager or a Ring is created: LeaseDuration is
// whole seconds (the Lease stores seconds), at least one;
// 0 < RenewDeadline < LeaseDuration; and RetryPeriod, stretched by client-go's
// leaderelection.JitterFactor, stays below RenewDeadline.
type Config struct {
	// Client reads and writes the Lease. Nil means the client of whatever
	// holds the Config (manager.Options.Client).
	Client kubernetes.Interface
	// Namespace holds the Lease.
	Namespace string
	// ID identifies this holder. Empty means the lowercased host name (a
	// pod's name) followed by "-" and a random UUID, so that two holders
	// in one process are distinct. Two processes with one ID would share
	// a Lease: never reuse an ID while its process may still run.
	ID string

	// LeaseDuration is how long a Lease lasts without renewal: the others
	// wait this long after the last renewal before they take over. Zero
	// means DefaultLeaseDuration.
	LeaseDuration time.Duration
	// RenewDeadline is how long a holder keeps trying to renew before it
	// gives up (and stops its work). Zero means DefaultRenewDeadline.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between attempts to acquire or renew. Zero
	// means DefaultRetryPeriod.
	RetryPeriod time.Duration
}
