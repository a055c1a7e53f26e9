// Package prommetrics exports workqueue metrics to Prometheus under the
// names Kubernetes dashboards already know (workqueue_depth,
// workqueue_adds_total, workqueue_queue_duration_seconds, ...), labelled by
// queue name, with component-base's histogram buckets.
//
// The metrics are registered on the registry the caller passes; there is no
// process-global provider. New may be called many times on one registry:
// later calls reuse the collectors already there, so several controllers can
// share a registry, while separate registries never share state.
package prommetrics
