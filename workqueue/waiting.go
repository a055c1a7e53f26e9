package workqueue

// waitItem is one delayed key. The heap holds the key itself so that a
// delayed key costs its map entry and these 8+sizeof(T) bytes, nothing more.
type waitItem[T comparable] struct {
	at  int64 // ready time on the queue's clock
	key T
}

// The delay heap is a binary min-heap on at, stored in q.waiting. Every item
// a sift moves gets its new index recorded in its entry; the item being
// sifted is the caller's to record (it usually rewrites that entry anyway),
// which saves two map operations per delayed add. The Queue's mutex guards
// the heap.

// heapPush adds key and returns its index.
func (q *Queue[T]) heapPush(key T, at int64) uint32 {
	q.waiting = append(q.waiting, waitItem[T]{at: at, key: key})
	return q.heapUp(len(q.waiting) - 1)
}

// heapRemove deletes the item at i.
func (q *Queue[T]) heapRemove(i uint32) {
	last := uint32(len(q.waiting) - 1)
	moved := q.waiting[last]
	q.waiting[last] = waitItem[T]{} // do not keep the key reachable
	q.waiting = q.waiting[:last]
	if i != last {
		q.waiting[i] = moved
		j := q.heapUp(int(i))
		if j == i {
			j = q.heapDown(int(i))
		}
		q.entries[moved.key] = q.entries[moved.key].withIndex(j)
	}
	if last == 0 && cap(q.waiting) > 4096 {
		q.waiting = nil // a drained burst should not pin its memory
	}
}

// heapUp moves item i towards the root and returns its final index.
func (q *Queue[T]) heapUp(i int) uint32 {
	item := q.waiting[i]
	for i > 0 {
		parent := (i - 1) / 2
		if q.waiting[parent].at <= item.at {
			break
		}
		q.heapPlace(i, q.waiting[parent])
		i = parent
	}
	q.waiting[i] = item
	return uint32(i)
}

// heapDown moves item i towards the leaves and returns its final index.
func (q *Queue[T]) heapDown(i int) uint32 {
	item := q.waiting[i]
	n := len(q.waiting)
	for {
		child := 2*i + 1
		if child >= n {
			break
		}
		if r := child + 1; r < n && q.waiting[r].at < q.waiting[child].at {
			child = r
		}
		if item.at <= q.waiting[child].at {
			break
		}
		q.heapPlace(i, q.waiting[child])
		i = child
	}
	q.waiting[i] = item
	return uint32(i)
}

func (q *Queue[T]) heapPlace(i int, item waitItem[T]) {
	q.waiting[i] = item
	q.entries[item.key] = q.entries[item.key].withIndex(uint32(i))
}
