package workqueue

// Levels (one per priority with ready keys) and their lanes (one per lane
// name with ready keys), kept in recycled slices; see readyQueue.
//
// A queue that empties after every key (one key at a time, the common quiet
// case) would drop and rebuild its level and lane on every add. So the last
// level is kept when it empties, as the only entry of active, and so is its
// lane when there is no lane function: active holds non-empty levels, or
// exactly one empty level.

// levelFor returns the level of prio, making it active if needed.
func (r *readyQueue[T]) levelFor(prio int32) uint32 {
	if len(r.active) == 1 {
		li := r.active[0]
		if lv := &r.levels[li]; lv.count == 0 {
			// The kept empty level: take it over for prio.
			lv.prio = prio
			return li
		}
	}
	pos := len(r.active)
	for i, li := range r.active {
		p := r.levels[li].prio
		if p == prio {
			return li
		}
		if p < prio {
			pos = i
			break
		}
	}
	var li uint32
	if k := len(r.freeLevels); k > 0 {
		li = r.freeLevels[k-1]
		r.freeLevels = r.freeLevels[:k-1]
	} else {
		li = uint32(len(r.levels))
		r.levels = append(r.levels, level{})
	}
	lv := &r.levels[li]
	lanes := lv.lanes // keep the (empty) map for reuse
	*lv = level{prio: prio, cursor: noIndex, oldest: noIndex, newest: noIndex, soleLane: noIndex, lanes: lanes}
	r.active = append(r.active, 0)
	copy(r.active[pos+1:], r.active[pos:])
	r.active[pos] = li
	return li
}

// dropLevel retires an empty level, unless it is the last one (see above).
func (r *readyQueue[T]) dropLevel(li uint32) {
	if len(r.active) == 1 {
		return
	}
	for i, a := range r.active {
		if a == li {
			r.active = append(r.active[:i], r.active[i+1:]...)
			break
		}
	}
	r.freeLevels = append(r.freeLevels, li)
}

// laneFor returns key's lane in level li, creating it at the end of the
// current round if needed.
func (r *readyQueue[T]) laneFor(li uint32, key T) uint32 {
	lv := &r.levels[li]
	var name string
	if r.laneOf == nil {
		if lv.soleLane != noIndex {
			return lv.soleLane
		}
	} else {
		name = r.laneOf(key)
		if ln, ok := lv.lanes[name]; ok {
			return ln
		}
	}

	ln := r.freeLane
	if ln == noIndex {
		ln = uint32(len(r.lanes))
		r.lanes = append(r.lanes, lane{})
	} else {
		r.freeLane = r.lanes[ln].next
	}
	l := &r.lanes[ln]
	*l = lane{name: name, head: noIndex, tail: noIndex, level: li}
	if lv.cursor == noIndex {
		l.prev, l.next = ln, ln
		lv.cursor = ln
	} else {
		// Insert just before the cursor: the new lane waits for the lanes
		// already in this round, no longer.
		c := lv.cursor
		p := r.lanes[c].prev
		l.prev, l.next = p, c
		r.lanes[p].next = ln
		r.lanes[c].prev = ln
	}
	if r.laneOf == nil {
		lv.soleLane = ln
	} else {
		if lv.lanes == nil {
			lv.lanes = make(map[string]uint32)
		}
		lv.lanes[name] = ln
	}
	return ln
}

// dropLane retires an empty lane, unless it is the sole lane of the last
// level (see above).
func (r *readyQueue[T]) dropLane(li, ln uint32) {
	lv := &r.levels[li]
	l := &r.lanes[ln]
	if r.laneOf == nil && len(r.active) == 1 && lv.count == 0 {
		return
	}
	if l.next == ln {
		lv.cursor = noIndex
	} else {
		r.lanes[l.prev].next = l.next
		r.lanes[l.next].prev = l.prev
		if lv.cursor == ln {
			lv.cursor = l.next
		}
	}
	if r.laneOf == nil {
		lv.soleLane = noIndex
	} else {
		delete(lv.lanes, l.name)
	}
	l.name = ""
	l.next = r.freeLane
	r.freeLane = ln
}
