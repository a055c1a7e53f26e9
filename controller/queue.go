package controller

import (
	"github.com/go-logr/logr"

	"github.com/ctrlkit/ctrlkit/workqueue"
	"github.com/ctrlkit/ctrlkit/workqueue/prommetrics"
)

// newQueue builds the controller's own queue from opts, with its metrics on
// opts.Registry (labelled with the controller's name) when that is set.
func newQueue[K comparable](name string, opts Options[K], log logr.Logger) (*workqueue.Queue[K], error) {
	qopts := workqueue.Options[K]{
		Name:        name,
		RateLimiter: opts.RateLimiter,
		Lane:        opts.Lane,
		MaxRetries:  max(opts.MaxRetries, 0), // negative: UnlimitedRetries
		Clock:       opts.Clock,
		Logger:      log,
	}
	if opts.Registry != nil {
		provider, err := prommetrics.New(opts.Registry)
		if err != nil {
			return nil, err
		}
		qopts.MetricsProvider = provider
	}
	return workqueue.New(qopts), nil
}
