// Package ring is the machinery behind package controller/sharding: one
// member of a shard ring (its Lease, its rounds, the handover protocol and
// key admission), the balancer that cuts the hash space, range algebra and
// shard selectors, and the list-watch that keeps an informer's cache to the
// member's ranges, moving its watch in place when they change.
//
// Package sharding's DESIGN.md describes the protocol and why it is safe.
// Tests drive a member by hand (Sync, Leave) on a fake clock.
package ring
