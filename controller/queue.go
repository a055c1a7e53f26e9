package controller

import (
	"github.com/go-logr/logr"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// newQueue builds the controller's own queue from opts.
func newQueue[K comparable](name string, opts Options[K], log logr.Logger) (workqueue.Interface[K], error) {
	qopts := workqueue.Options[K]{
		Name:        name,
		RateLimiter: opts.RateLimiter,
		Lane:        opts.Lane,
		MaxRetries:  opts.MaxRetries,
		Clock:       opts.Clock,
		Logger:      log,
	}
	return workqueue.New(qopts), nil
}
