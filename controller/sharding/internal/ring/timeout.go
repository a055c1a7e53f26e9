package ring

import "time"

// ReconcileTimeout is the longest a reconcile of a controller sharded by r
// should run: four fifths of LeaseDuration − RenewDeadline (4 s with the
// defaults). A member that loses the API server stops handing out keys
// RenewDeadline after its last renewal, and the others take its range over
// LeaseDuration after it: a reconcile admitted just before that fence must
// have returned by then, or it may overlap the new owner's reconcile of the
// same key. The last fifth is left for it to return once its context has
// ended. Set it as the controller's Options.ReconcileTimeout (package
// builder's Sharded does, unless one is set).
func (r *Ring) ReconcileTimeout() time.Duration {
	return (r.opts.Lease.LeaseDuration - r.opts.Lease.RenewDeadline) * 4 / 5
}
