// Package shrinkmap is a map that gives memory back after a burst.
//
// A Go map never shrinks: deleting keys frees the values they point to,
// but the table keeps the slots of its largest size for as long as the map
// lives. A controller's per-key state (queued keys, keys in flight, writes
// waiting to be observed) grows with a burst of work to its peak and is
// nearly empty again once the burst is over; kept in a plain map, it holds
// the memory of its worst hour for the life of the process. Map copies its
// keys into a new map of their size once deletes have brought it well
// below its peak.
package shrinkmap

import "iter"

const (
	// minPeak is the peak below which a map is never copied: the slots of
	// a small map cost less than copying it would.
	minPeak = 256
	// shrinkFactor: a map is copied when deletes leave it holding no more
	// than 1/shrinkFactor of its peak. The copy moves at most that many
	// entries, paid for by at least (shrinkFactor-1) times as many deletes
	// since the peak: amortised, a delete costs a constant.
	shrinkFactor = 4
)

// Map is a map[K]V that is copied into a smaller one when deletes leave it
// at a quarter of its peak size or less (for peaks of minPeak entries or
// more). Its zero value is an empty map ready to use. It is not safe for
// concurrent use.
type Map[K comparable, V any] struct {
	m    map[K]V
	peak int // the most entries m has held since it was made
}

// Get returns the value of k and whether k is present.
func (s *Map[K, V]) Get(k K) (V, bool) {
	v, ok := s.m[k]
	return v, ok
}

// Set sets the value of k.
func (s *Map[K, V]) Set(k K, v V) {
	if s.m == nil {
		s.m = make(map[K]V)
	}
	s.m[k] = v
	s.peak = max(s.peak, len(s.m))
}

// Delete removes k, and copies the map into a smaller one if it has
// become small enough (see Map).
func (s *Map[K, V]) Delete(k K) {
	delete(s.m, k)
	if s.peak >= minPeak && len(s.m) <= s.peak/shrinkFactor {
		small := make(map[K]V, len(s.m))
		for k, v := range s.m {
			small[k] = v
		}
		s.m, s.peak = small, len(small)
	}
}

// Len returns the number of entries.
func (s *Map[K, V]) Len() int { return len(s.m) }

// All iterates over the entries in no particular order. Do not call Set or
// Delete while iterating.
func (s *Map[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		for k, v := range s.m {
			if !yield(k, v) {
				return
			}
		}
	}
}

// Clear removes every entry and lets the table go.
func (s *Map[K, V]) Clear() { s.m, s.peak = nil, 0 }
