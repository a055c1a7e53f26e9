package workqueue

import "sync/atomic"

// noIndex marks the absence of a node, lane or level.
const noIndex = ^uint32(0)

// agedShare is how often the starvation guard gets a turn: one Get in
// agedShare serves a starving lower level, the rest serve the top level.
const agedShare = 4

// Node states. A node exists from the moment its key is ready until Done,
// so hand-outs and re-adds of an in-flight key touch the node, not the map.
const (
	nodeReady    uint8 = iota // linked: Get can hand it out
	nodeInFlight              // handed out, nothing pending
	nodeHeld                  // handed out and added again: linked on Done
)

// readyNode is one key that is ready, in flight, or both.
type readyNode[T comparable] struct {
	key T
	// readyAt is when the key became ready, on the queue's clock; kept only
	// when metrics are on (queue latency).
	readyAt int64
	// seq is the hand-out count when the key became ready: the starvation
	// guard's notion of age.
	seq uint64
	// prev/next link the lane's FIFO; next also links the free list.
	prev, next uint32
	// older/newer link the level's arrival order.
	older, newer uint32
	lane         uint32
	prio         int32
	state        uint8
}

// lane is one fairness lane of one priority level: a FIFO of nodes, and a
// member of its level's ring of non-empty lanes.
type lane struct {
	name       string
	head, tail uint32
	prev, next uint32 // the level's ring; next also links the free list
	level      uint32
}

// level holds the ready keys of one priority.
type level struct {
	prio  int32
	count int
	// cursor is the lane served next; the ring of non-empty lanes is
	// served round-robin from here.
	cursor uint32
	// oldest/newest are the ends of the arrival order.
	oldest, newest uint32
	// soleLane is the only lane when the queue has no lane function.
	soleLane uint32
	lanes    map[string]uint32
}

// readyQueue orders ready keys by (priority desc, lane round-robin, FIFO).
// Nodes, lanes and levels live in slices and are recycled, so steady-state
// traffic does not allocate. It is not safe for concurrent use: the Queue's
// mutex guards it.
type readyQueue[T comparable] struct {
	nodes    []readyNode[T]
	freeNode uint32
	live     int // allocated nodes: ready, in flight or held
	// peak is the most nodes live since the arena was last empty.
	peak int

	lanes    []lane
	freeLane uint32

	levels     []level
	freeLevels []uint32
	// active lists the non-empty levels by priority, highest first.
	active []uint32

	laneOf          func(T) string
	starvationLimit uint64 // zero disables the guard
	handedOut       uint64
	agedCredit      int

	count int // linked nodes
	// published is set once Len has been called; from then on every change
	// of count is stored there too, for Len to read without the lock (see
	// len.go).
	published *atomic.Int64
}

func newReadyQueue[T comparable](laneOf func(T) string, starvationLimit int) readyQueue[T] {
	r := readyQueue[T]{freeNode: noIndex, freeLane: noIndex, laneOf: laneOf}
	switch {
	case starvationLimit == 0:
		r.starvationLimit = DefaultStarvationLimit
	case starvationLimit > 0:
		r.starvationLimit = uint64(starvationLimit)
	}
	return r
}

// alloc returns an unlinked node for key.
func (r *readyQueue[T]) alloc(key T, readyAt int64) uint32 {
	r.live++
	r.peak = max(r.peak, r.live)
	n := r.freeNode
	if n == noIndex {
		n = uint32(len(r.nodes))
		r.nodes = append(r.nodes, readyNode[T]{key: key, readyAt: readyAt})
		return n
	}
	r.freeNode = r.nodes[n].next
	r.nodes[n] = readyNode[T]{key: key, readyAt: readyAt}
	return n
}

// free recycles an unlinked node. When the queue empties after a round that
// used under a quarter of the arena, the arenas are given back, so a burst
// does not pin its memory while steady traffic keeps reusing them.
func (r *readyQueue[T]) free(n uint32) {
	var zero T
	r.nodes[n].key = zero // do not keep the key reachable
	r.nodes[n].next = r.freeNode
	r.freeNode = n
	r.live--
	if r.live == 0 {
		if cap(r.nodes) > 4096 && r.peak < cap(r.nodes)/4 {
			r.nodes, r.freeNode = nil, noIndex
			r.lanes, r.freeLane = nil, noIndex
			// The kept empty level may name a lane: forget it too.
			r.levels, r.freeLevels, r.active = nil, nil, r.active[:0]
		}
		r.peak = 0
	}
}

// push queues key at prio and returns its node.
func (r *readyQueue[T]) push(key T, prio int32, readyAt int64) uint32 {
	n := r.alloc(key, readyAt)
	r.link(n, prio, r.handedOut)
	return n
}

// link appends node n to the tail of its lane at prio and marks it ready.
func (r *readyQueue[T]) link(n uint32, prio int32, seq uint64) {
	li := r.levelFor(prio)
	lv := &r.levels[li]
	ln := r.laneFor(li, r.nodes[n].key)
	node := &r.nodes[n]
	node.seq, node.lane, node.prio, node.state = seq, ln, prio, nodeReady

	l := &r.lanes[ln]
	node.prev, node.next = l.tail, noIndex
	if l.tail == noIndex {
		l.head = n
	} else {
		r.nodes[l.tail].next = n
	}
	l.tail = n

	node.older, node.newer = lv.newest, noIndex
	if lv.newest == noIndex {
		lv.oldest = n
	} else {
		r.nodes[lv.newest].newer = n
	}
	lv.newest = n
	lv.count++
	r.count++
	if r.published != nil {
		r.published.Store(int64(r.count))
	}
}

// unlink takes node n out of its lane and level, dropping whichever becomes
// empty. The node stays allocated.
func (r *readyQueue[T]) unlink(n uint32) {
	node := &r.nodes[n]
	ln := node.lane
	l := &r.lanes[ln]
	li := l.level
	lv := &r.levels[li]

	if node.prev == noIndex {
		l.head = node.next
	} else {
		r.nodes[node.prev].next = node.next
	}
	if node.next == noIndex {
		l.tail = node.prev
	} else {
		r.nodes[node.next].prev = node.prev
	}

	if node.older == noIndex {
		lv.oldest = node.newer
	} else {
		r.nodes[node.older].newer = node.newer
	}
	if node.newer == noIndex {
		lv.newest = node.older
	} else {
		r.nodes[node.newer].older = node.older
	}
	lv.count--
	r.count--
	if r.published != nil {
		r.published.Store(int64(r.count))
	}

	if l.head == noIndex {
		r.dropLane(li, ln)
	}
	if lv.count == 0 {
		r.dropLevel(li)
	}
}

// move re-queues node n at a new priority, keeping its age.
func (r *readyQueue[T]) move(n uint32, prio int32) {
	seq := r.nodes[n].seq
	r.unlink(n)
	r.link(n, prio, seq)
}

// pop unlinks and returns the next node to hand out, still allocated. The
// queue must not be empty.
func (r *readyQueue[T]) pop() uint32 {
	li := r.chooseLevel()
	lv := &r.levels[li]
	ln := lv.cursor
	n := r.lanes[ln].head
	lv.cursor = r.lanes[ln].next
	r.unlink(n)
	r.handedOut++
	return n
}

// chooseLevel picks the top level, except on the starvation guard's turn.
func (r *readyQueue[T]) chooseLevel() uint32 {
	top := r.active[0]
	if len(r.active) == 1 || r.starvationLimit == 0 {
		return top
	}
	starving, seq := noIndex, uint64(0)
	for _, li := range r.active[1:] {
		s := r.nodes[r.levels[li].oldest].seq
		if starving == noIndex || s < seq {
			starving, seq = li, s
		}
	}
	if r.handedOut-seq < r.starvationLimit {
		return top
	}
	if r.agedCredit > 0 {
		r.agedCredit--
		return top
	}
	r.agedCredit = agedShare - 1
	return starving
}
