package workqueue

import "container/heap"

// waitItem is one delayed key: 32 bytes beside its map entry, so that a
// queue of delayed keys stays small.
type waitItem[T comparable] struct {
	key      T
	at       int64 // ready time on the queue's clock
	index    int32 // position in the heap
	priority int32
}

// waitHeap holds the delayed keys: a min-heap on the ready time, and an
// index by key. The Queue's mutex guards it.
type waitHeap[T comparable] struct {
	items []*waitItem[T]
	byKey map[T]*waitItem[T]
}

func (h *waitHeap[T]) Len() int           { return len(h.items) }
func (h *waitHeap[T]) Less(i, j int) bool { return h.items[i].at < h.items[j].at }
func (h *waitHeap[T]) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index, h.items[j].index = int32(i), int32(j)
}
func (h *waitHeap[T]) Push(x any) {
	w := x.(*waitItem[T])
	w.index = int32(len(h.items))
	h.items = append(h.items, w)
}
func (h *waitHeap[T]) Pop() any {
	last := len(h.items) - 1
	w := h.items[last]
	h.items[last] = nil // do not keep the key reachable
	h.items = h.items[:last]
	return w
}

// add delays key until at, or moves it earlier if it waits already; the
// higher priority is kept.
func (h *waitHeap[T]) add(key T, priority int32, at int64) {
	if w, ok := h.byKey[key]; ok {
		w.priority = max(w.priority, priority)
		if at < w.at {
			w.at = at
			heap.Fix(h, int(w.index))
		}
		return
	}
	w := &waitItem[T]{key: key, at: at, priority: priority}
	heap.Push(h, w)
	h.byKey[key] = w
}

// take removes key if it waits, returning its priority.
func (h *waitHeap[T]) take(key T) (priority int32, ok bool) {
	w, ok := h.byKey[key]
	if !ok {
		return 0, false
	}
	heap.Remove(h, int(w.index))
	delete(h.byKey, key)
	return w.priority, true
}

// next returns the earliest ready time; the heap must not be empty.
func (h *waitHeap[T]) next() int64 { return h.items[0].at }

// popDue removes and returns the earliest key if it is due by now.
func (h *waitHeap[T]) popDue(now int64) (w *waitItem[T], ok bool) {
	if len(h.items) == 0 || h.items[0].at > now {
		return nil, false
	}
	w = heap.Pop(h).(*waitItem[T])
	delete(h.byKey, w.key)
	return w, true
}

// clear discards every delayed key.
func (h *waitHeap[T]) clear() {
	h.items = nil
	clear(h.byKey)
}
