// Package prommetrics exports workqueue metrics to Prometheus under the
// names, help texts and labels of controller-runtime's (workqueue_depth,
// workqueue_adds_total, workqueue_queue_duration_seconds, ...), so that
// existing dashboards work and one dashboard serves both.
//
// The metrics are registered on the registry the caller passes; there is no
// process-global provider. New may be called many times on one registry:
// later calls reuse the collectors already there, as they reuse
// controller-runtime's on its metrics.Registry, so several controllers, or a
// ctrlkit and a controller-runtime controller, can share a registry, while
// separate registries never share state.
package prommetrics
