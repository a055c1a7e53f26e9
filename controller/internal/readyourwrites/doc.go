// Package readyourwrites holds a controller's key, after a reconcile that
// recorded writes, until the controller's informers have delivered those
// writes, so that the key's next reconcile reads a cache that holds them.
// Package controller's RecordWrite, RecordDelete and
// Options.CacheHoldTimeout are its public face; Tracker is the mechanism,
// and its comment states the invariants.
package readyourwrites
