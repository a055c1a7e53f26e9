// Package fakeapi makes client-go's fake clientset behave more like an API
// server where the examples' tests depend on it: watchers get their own
// copies, resourceVersions, optimistic concurrency, generations, and the
// spec/status split of writes.
//
// The fake's tracker stores whatever it is given: a writer holding a stale
// copy overwrites a newer object without a conflict, and a status update
// rewrites the spec. That hides nothing when one controller writes alone,
// but with two controllers writing the same object (configrollout stamps a
// Deployment's template while the Deployment controller updates its
// status) a test would see writes that a real API server rejects.
package fakeapi
