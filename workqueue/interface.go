package workqueue

import (
	"time"

	clientgoworkqueue "k8s.io/client-go/util/workqueue"
)

// Priorities used by the controller package. Any int is a valid priority;
// higher is served first.
const (
	// PriorityLow is for work that is not caused by a real change: the
	// informer's initial list and periodic resyncs.
	PriorityLow = -100
	// PriorityNormal is the priority of Add and of every add that names none.
	PriorityNormal = 0
)

// AddOpts describe one add. The zero value is a plain Add at PriorityNormal.
type AddOpts struct {
	// After delays the add; zero or negative means ready now.
	After time.Duration
	// RateLimited asks the queue's rate limiter for the delay, on top of After
	// (the longer of the two wins).
	RateLimited bool
	// Priority orders ready items: higher first. Re-adding a queued key keeps
	// the higher of its priorities and the earlier of its ready times.
	// Priorities beyond the int32 range are served as the nearest int32.
	Priority int
}

// Interface is the queue's whole surface: client-go's rate-limiting queue plus
// priorities. Every key K is held at most once, wherever it is (ready,
// waiting, or in flight), and is never handed to two workers at once.
type Interface[T comparable] interface {
	clientgoworkqueue.TypedRateLimitingInterface[T]

	// AddWithOpts adds the keys with the given options.
	AddWithOpts(o AddOpts, keys ...T)
	// GetWithPriority is Get that also reports the priority the key was
	// queued with.
	GetWithPriority() (key T, priority int, shutdown bool)
	// GetWithWait is GetWithPriority that also reports how long the key
	// was ready before it was handed out.
	GetWithWait() (key T, priority int, waited time.Duration, shutdown bool)
}
