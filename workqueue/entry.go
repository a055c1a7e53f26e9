package workqueue

import "math"

// entry is the queue's one record per key: where the key is and at which
// priority. It is eight bytes so that a queue of delayed keys stays small.
type entry struct {
	// ref packs the in-flight flag, the place and an index: the heap index
	// of a waiting key, the node of a ready or held key.
	ref uint32
	// prio is the priority the key will be (or is) served at; meaningless
	// while the place is placeNone.
	prio int32
}

const (
	inFlightBit = 1 << 31

	placeMask    = 3 << 29
	placeNone    = 0       // in flight, nothing pending
	placeWaiting = 1 << 29 // in the delay heap
	placeReady   = 2 << 29 // linked in the ready queue
	placeHeld    = 3 << 29 // ready, but in flight: linked on Done

	indexMask = 1<<29 - 1
)

func (e entry) place() uint32  { return e.ref & placeMask }
func (e entry) index() uint32  { return e.ref & indexMask }
func (e entry) inFlight() bool { return e.ref&inFlightBit != 0 }
func (e entry) at(place, i uint32) entry {
	e.ref = e.ref&inFlightBit | place | i
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
