// Package lease holds the one type that leader election (package
// controller/manager) and shard rings (package controller/sharding) share:
// who holds a coordination.k8s.io Lease, where, and on what timings.
//
// The timings are client-go's leaderelection semantics, and their defaults
// are kube-controller-manager's: a holder renews every RetryPeriod, gives up
// once it has failed to renew for RenewDeadline, and the others take over
// LeaseDuration after its last renewal. LeaseDuration − RenewDeadline is
// therefore how long work started by a holder that lost contact may still
// run while another holder may already have started: a sharded controller's
// reconcile timeout is derived from it.
package lease
