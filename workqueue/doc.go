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
//   - Lower priorities do not starve: once a level of ready keys has been
//     passed over by Options.StarvationLimit hand-outs, one Get in four
//     serves it until it is empty or on top.
//   - No goroutine runs while nothing is delayed (and, with metrics, nothing is
//     in flight); one timer serves all delayed keys.
//   - Adding a key that is already queued does not allocate.
//
// Queue satisfies client-go's workqueue.TypedRateLimitingInterface, so code
// written for client-go's queue works unchanged. Rate limiters follow
// client-go's TypedRateLimiter contract; NewTypedBucketRateLimiter adds the
// maximum delay that client-go's bucket lacks. Metrics go through client-go's
// MetricsProvider interface; package prommetrics registers the usual
// workqueue_* Prometheus series on a registry of the caller's choosing.
package workqueue
