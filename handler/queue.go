package handler

import "github.com/ctrlkit/ctrlkit/workqueue"

// Queue is the part of a work queue a handler needs: every
// workqueue.Interface has it, and so does anything that records adds, which
// keeps handlers testable without a queue.
type Queue[K comparable] interface {
	// AddWithOpts adds keys with the given options. It must not retain keys.
	AddWithOpts(o workqueue.AddOpts, keys ...K)
}
