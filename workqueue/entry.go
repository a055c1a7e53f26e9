package workqueue

import "math"

// entry is the queue's one record per key. It is eight bytes so that a
// queue of delayed keys stays small. A key is either
//   - at a node of the ready queue (ready, in flight, or in flight and added
//     again: the node's state says which, and the node holds the priority),
//   - or waiting in the delay heap, possibly while also in flight.
type entry struct {
	// ref packs the kind, the in-flight flag (waiting keys only) and the
	// node or heap index.
	ref uint32
	// prio is a waiting key's priority.
	prio int32
}

const (
	inFlightBit = 1 << 31
	waitingBit  = 1 << 30
	indexMask   = 1<<30 - 1
)

func nodeEntry(n uint32) entry { return entry{ref: n} }

func waitingEntry(i uint32, prio int32, inFlight bool) entry {
	e := entry{ref: waitingBit | i, prio: prio}
	if inFlight {
		e.ref |= inFlightBit
	}
	return e
}

func (e entry) waiting() bool  { return e.ref&waitingBit != 0 }
func (e entry) inFlight() bool { return e.ref&inFlightBit != 0 }
func (e entry) index() uint32  { return e.ref & indexMask }

// withIndex moves a waiting entry to heap index i.
func (e entry) withIndex(i uint32) entry {
	e.ref = e.ref&^indexMask | i
	return e
}

// clampPriority fits a priority into the entry; priorities beyond int32 are
// served as the nearest int32.
func clampPriority(p int) int32 {
	switch {
	case p > math.MaxInt32:
		return math.MaxInt32
	case p < math.MinInt32:
		return math.MinInt32
	}
	return int32(p)
}
