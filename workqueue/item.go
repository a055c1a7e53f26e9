package workqueue

import "math"

// item is the queue's record of a key that is ready or in flight.
type item[T comparable] struct {
	key      T
	priority int32
	state    itemState
	// readyAt is when the key last became ready (or requeued), on the
	// queue's clock, for GetWithWait and the queue-latency metric.
	readyAt int64
	// prev and next link the item into its lane while it is ready.
	prev, next *item[T]
}

// itemState says where an item is; see Queue.
type itemState uint8

const (
	itemReady    itemState = iota // linked into the ready queue
	itemInFlight                  // handed out, not added since
	itemRequeued                  // handed out and added again: ready on Done
)

// clampPriority fits a priority into an item; priorities beyond int32 are
// served as the nearest int32.
func clampPriority(p int) int32 {
	return int32(min(max(p, math.MinInt32), math.MaxInt32))
}
