package ring

import (
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
)

// The Lease fields a ring member publishes.
const (
	// RingLabel labels each member's Lease with the ring's name; members
	// find each other by listing Leases with it.
	RingLabel = "ctrlkit.io/shard-ring"
	// DrainedForAnnotation holds the ID of the assignment (Assignment.ID)
	// for which the member has drained: it reconciles nothing, and will
	// start nothing, outside its ranges in that assignment. See the package
	// documentation.
	DrainedForAnnotation = "ctrlkit.io/shard-drained-for"
	// AssignmentAnnotation holds, on the coordinator's Lease, the
	// assignment the members adopt (Assignment.String).
	AssignmentAnnotation = "ctrlkit.io/shard-assignment"
	// ServingAnnotation shows the ranges the member was serving when it
	// last wrote its Lease, for people and tests; the protocol does not
	// read it.
	ServingAnnotation = "ctrlkit.io/shard-serving"
)

// view is the ring's live members as one member sees them: IDs, sorted.
// The first is the coordinator.
type view []string

// observation is what a member last saw of another's Lease, and when on
// its own clock it first saw it. A Lease is judged by how long it has not
// changed on the observer's clock, never by the RenewTime written in it,
// so that clock skew between replicas does not matter (client-go's leader
// election does the same).
type observation struct {
	record string // holder, renew time and acknowledgement: any change is a sign of life
	seen   time.Time
}

// peer is a live member other than this one, as of the last list.
type peer struct {
	id         string
	drainedFor string
	assignment string // AssignmentAnnotation: set on a coordinator's Lease
}

// leaseRecord is what counts as a change of lease l.
func leaseRecord(l *coordinationv1.Lease) string {
	var holder, renew string
	if l.Spec.HolderIdentity != nil {
		holder = *l.Spec.HolderIdentity
	}
	if l.Spec.RenewTime != nil {
		renew = l.Spec.RenewTime.UTC().Format(time.RFC3339Nano)
	}
	return holder + "\x00" + renew + "\x00" + l.Annotations[DrainedForAnnotation] + "\x00" + l.Annotations[AssignmentAnnotation]
}

// leaseHolder is l's holder identity, "" once released.
func leaseHolder(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// leaseDuration is how long l lasts without a change, def if unset.
func leaseDuration(l *coordinationv1.Lease, def time.Duration) time.Duration {
	if l.Spec.LeaseDurationSeconds == nil || *l.Spec.LeaseDurationSeconds <= 0 {
		return def
	}
	return time.Duration(*l.Spec.LeaseDurationSeconds) * time.Second
}
