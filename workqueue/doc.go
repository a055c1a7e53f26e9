// Package workqueue is the queue between informer events and a controller's
// workers: client-go's rate-limiting workqueue contract, plus priorities,
// per-lane fairness and a starvation guard, in one structure that holds each
// key exactly once.
//
// # Guarantees
//
//   - One entry per key. A key is ready, waiting (delayed or rate limited), or
//     absent, never two of these. Re-adding a held key keeps the earlier ready
//     time and the higher priority, so AddAfter(k, 5h) followed by Add(k)
//     processes k once, now.
//   - A key is never handed to two workers at once. A key added while a worker
//     holds it is handed out again after Done.
//   - Ready keys are served by priority (higher first), round-robin over lanes
//     within a priority (see Options.Lane), FIFO within a lane.
//   - Lower priorities do not starve: once a ready key has been passed over by
//     Options.StarvationLimit hand-outs, one Get in four serves its level.
//   - No goroutine runs while nothing is delayed (and, with metrics, nothing is
//     in flight); one timer serves all delayed keys.
//   - Adding a key that is already queued does not allocate.
//   - Under contention, an Add or Done that finds the queue's lock taken may
//     leave its key in a small ring for the lock's holder to apply, instead of
//     waiting for the lock; the caller's next call sees it applied (see
//     posted.go for the invariants).
//
// DoneTimed is Done that also returns how long the key was in flight, on the
// queue's clock; the controller package times reconciles with it.
// DoneAndGetReady is DoneTimed followed by a Get that does not wait: a
// worker with keys waiting takes the lock once per key instead of twice, as
// the controller package's workers do.
//
// Queue satisfies client-go's workqueue.TypedRateLimitingInterface, so code
// written for client-go's queue works unchanged. Rate limiters follow
// client-go's TypedRateLimiter contract; NewTypedBucketRateLimiter adds the
// maximum delay that client-go's bucket lacks. Metrics go through client-go's
// MetricsProvider interface; package prommetrics registers the usual
// workqueue_* Prometheus series on a registry of the caller's choosing. The
// queue updates some metrics after releasing its lock, from any caller's
// goroutine: they must be safe for concurrent use, as Prometheus metrics
// are.
package workqueue
