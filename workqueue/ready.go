package workqueue

import "slices"

// agedShare is how often the starvation guard gets a turn: one Get in
// agedShare serves a starving lower level, the rest serve the top level.
const agedShare = 4

// readyQueue orders ready items by priority (higher first), then
// round-robin over the lanes of that priority, then FIFO within a lane.
//
// levels holds one level per priority with ready items, highest first;
// each level holds its non-empty lanes in a ring, whose cursor is the lane
// served next, and (with a lane function) in a map by name; each lane is a doubly linked list of
// items. len counts the linked items. The Queue's mutex guards it all.
//
// Starvation guard: a level below the top starts to wait when it gets its
// first item or is last served as the top level. Once it has waited for
// starvationLimit hand-outs it starves, and one pop in agedShare serves
// the level that has starved longest, until it empties or becomes the top.
type readyQueue[T comparable] struct {
	levels []*level[T]
	len    int

	laneOf          func(T) string // nil: one lane
	starvationLimit uint64         // zero: strict priorities
	handedOut       uint64
	agedCredit      int // top-level pops left before the guard's next turn

	// spareLevel and spareLane are the last ones emptied, reused for the
	// next new one: a queue that empties after every key (the quiet case)
	// then allocates nothing but its items.
	spareLevel *level[T]
	spareLane  *lane[T]
}

// level is the ready items of one priority.
type level[T comparable] struct {
	priority int32
	len      int
	lanes    map[string]*lane[T]
	cursor   *lane[T]
	since    uint64 // handedOut when it last got its first item or was served as the top
}

// lane is the ready items of one lane name within a level, oldest first.
type lane[T comparable] struct {
	name       string
	head, tail *item[T]
	prev, next *lane[T] // the level's ring
}

func newReadyQueue[T comparable](laneOf func(T) string, starvationLimit int) readyQueue[T] {
	r := readyQueue[T]{laneOf: laneOf}
	switch {
	case starvationLimit == 0:
		r.starvationLimit = DefaultStarvationLimit
	case starvationLimit > 0:
		r.starvationLimit = uint64(starvationLimit)
	}
	return r
}

// push appends it to the tail of its lane at its priority and marks it ready.
func (r *readyQueue[T]) push(it *item[T]) {
	lv := r.levelFor(it.priority)
	l := r.laneFor(lv, it.key)
	it.state = itemReady
	it.prev, it.next = l.tail, nil
	if l.tail == nil {
		l.head = it
	} else {
		l.tail.next = it
	}
	l.tail = it
	lv.len++
	r.len++
}

// remove unlinks a ready item, dropping its lane and level if they empty.
func (r *readyQueue[T]) remove(it *item[T]) {
	lv := r.find(it.priority)
	l := r.lookupLane(lv, it.key)
	if it.prev == nil {
		l.head = it.next
	} else {
		it.prev.next = it.next
	}
	if it.next == nil {
		l.tail = it.prev
	} else {
		it.next.prev = it.prev
	}
	it.prev, it.next = nil, nil
	lv.len--
	r.len--
	if l.head == nil {
		r.dropLane(lv, l)
	}
	if lv.len == 0 {
		r.dropLevel(lv)
	}
}

// raise moves a ready item to a higher priority, at the tail of its lane there.
func (r *readyQueue[T]) raise(it *item[T], priority int32) {
	r.remove(it)
	it.priority = priority
	r.push(it)
}

// pop unlinks and returns the next item to hand out. The queue must not be
// empty.
func (r *readyQueue[T]) pop() *item[T] {
	lv := r.chooseLevel()
	it := lv.cursor.head
	lv.cursor = lv.cursor.next
	r.remove(it)
	r.handedOut++
	return it
}

// chooseLevel picks the top level, except on the starvation guard's turn.
func (r *readyQueue[T]) chooseLevel() *level[T] {
	top := r.levels[0]
	if len(r.levels) > 1 && r.starvationLimit > 0 {
		starving := r.levels[1]
		for _, lv := range r.levels[2:] {
			if lv.since < starving.since {
				starving = lv
			}
		}
		if r.handedOut-starving.since >= r.starvationLimit {
			if r.agedCredit == 0 {
				r.agedCredit = agedShare - 1
				return starving
			}
			r.agedCredit--
		}
	}
	top.since = r.handedOut
	return top
}

// find returns the level of priority, which must exist.
func (r *readyQueue[T]) find(priority int32) *level[T] {
	for _, lv := range r.levels {
		if lv.priority == priority {
			return lv
		}
	}
	panic("workqueue: no level for a ready item's priority")
}

// levelFor returns the level of priority, adding it in order if needed.
func (r *readyQueue[T]) levelFor(priority int32) *level[T] {
	pos := len(r.levels)
	for i, lv := range r.levels {
		if lv.priority == priority {
			return lv
		}
		if lv.priority < priority {
			pos = i
			break
		}
	}
	lv := r.spareLevel
	r.spareLevel = nil
	if lv == nil {
		lv = &level[T]{}
		if r.laneOf != nil {
			lv.lanes = make(map[string]*lane[T])
		}
	}
	lv.priority, lv.since = priority, r.handedOut
	r.levels = slices.Insert(r.levels, pos, lv)
	return lv
}

func (r *readyQueue[T]) dropLevel(lv *level[T]) {
	i := slices.Index(r.levels, lv)
	r.levels = slices.Delete(r.levels, i, i+1)
	r.spareLevel = lv
}

// lookupLane returns key's lane in lv, or nil if it has none. Without a
// lane function the level's only lane is its cursor.
func (r *readyQueue[T]) lookupLane(lv *level[T], key T) *lane[T] {
	if r.laneOf == nil {
		return lv.cursor
	}
	return lv.lanes[r.laneOf(key)]
}

// laneFor returns key's lane in lv, adding a new one at the end of the
// current round: it waits for the lanes already in the round, no longer.
func (r *readyQueue[T]) laneFor(lv *level[T], key T) *lane[T] {
	if l := r.lookupLane(lv, key); l != nil {
		return l
	}
	l := r.spareLane
	r.spareLane = nil
	if l == nil {
		l = &lane[T]{}
	}
	if r.laneOf != nil {
		l.name = r.laneOf(key)
		lv.lanes[l.name] = l
	}
	if c := lv.cursor; c == nil {
		l.prev, l.next = l, l
		lv.cursor = l
	} else {
		l.prev, l.next = c.prev, c
		c.prev.next = l
		c.prev = l
	}
	return l
}

func (r *readyQueue[T]) dropLane(lv *level[T], l *lane[T]) {
	if l.next == l {
		lv.cursor = nil
	} else {
		l.prev.next = l.next
		l.next.prev = l.prev
		if lv.cursor == l {
			lv.cursor = l.next
		}
	}
	if r.laneOf != nil {
		delete(lv.lanes, l.name)
	}
	*l = lane[T]{}
	r.spareLane = l
}
