package workqueue

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
)

// indexShards spreads the repeat index over this many locks, so that
// producers on different CPUs rarely meet.
const indexShards = 64

// repeatIndex lets a repeated add of a queued key finish without the
// queue's lock. In a busy controller most adds repeat a key that is still
// queued; checking them here, under one of many small locks, keeps producers
// from queueing for the one big lock.
//
// A key is indexed once it is added again while ready or in flight, and
// stays indexed, with its current priority, until Get hands it out. Every
// change happens under the queue's lock, and the index entry goes before
// the hand-out: an add that finds its key here is therefore covered by a
// hand-out still to come. Keys added once (the usual Add, Get, Done cycle)
// never enter the index, and until a first repeat an add pays one atomic
// load.
type repeatIndex[T comparable] struct {
	seed maphash.Seed
	// used turns true at the first set and stays so: a flag that never
	// changes again costs readers nothing, where a live count would bounce
	// its cache line between CPUs on every set and remove.
	used   atomic.Bool
	shards [indexShards]indexShard[T]
}

type indexShard[T comparable] struct {
	mu   sync.Mutex
	prio map[T]int32
	_    [48]byte // one shard per cache line
}

func (x *repeatIndex[T]) shard(key T) *indexShard[T] {
	return &x.shards[maphash.Comparable(x.seed, key)%indexShards]
}

// covers reports whether key is queued (ready, or held for after Done) at
// prio or higher, so that adding it at prio now would change nothing.
func (x *repeatIndex[T]) covers(key T, prio int32) bool {
	if !x.used.Load() {
		return false
	}
	s := x.shard(key)
	s.mu.Lock()
	p, ok := s.prio[key]
	s.mu.Unlock()
	return ok && p >= prio
}

// set indexes key at prio. The caller holds the queue's lock.
func (x *repeatIndex[T]) set(key T, prio int32) {
	s := x.shard(key)
	s.mu.Lock()
	if s.prio == nil {
		s.prio = make(map[T]int32)
	}
	s.prio[key] = prio
	s.mu.Unlock()
	if !x.used.Load() {
		x.used.Store(true)
	}
}

// remove drops key. The caller holds the queue's lock.
func (x *repeatIndex[T]) remove(key T) {
	s := x.shard(key)
	s.mu.Lock()
	delete(s.prio, key)
	s.mu.Unlock()
}
