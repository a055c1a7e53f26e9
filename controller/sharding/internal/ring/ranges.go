package ring

import (
	"fmt"
	"math"
	"math/bits"

	kubesharding "k8s.io/apimachinery/pkg/sharding"
)

// Range is a contiguous part of the 64-bit hash space, from Start to Last,
// both included (so that the whole space, which ends at 2^64, fits in
// uint64). A Range with Start > Last is empty; the zero Range is not
// empty: it holds hash 0.
type Range struct {
	Start, Last uint64
}

// EmptyRange holds no hash.
var EmptyRange = Range{Start: 1, Last: 0}

// FullRange is the whole hash space.
var FullRange = Range{Start: 0, Last: math.MaxUint64}

// Empty reports whether r holds no hash.
func (r Range) Empty() bool { return r.Start > r.Last }

// Contains reports whether h is in r.
func (r Range) Contains(h uint64) bool { return r.Start <= h && h <= r.Last }

// Intersect is the part of the hash space in both r and o.
func (r Range) Intersect(o Range) Range {
	if r.Empty() || o.Empty() {
		return EmptyRange
	}
	s := Range{Start: max(r.Start, o.Start), Last: min(r.Last, o.Last)}
	if s.Empty() {
		return EmptyRange
	}
	return s
}

// Fraction is r's share of the hash space, between 0 and 1.
func (r Range) Fraction() float64 {
	if r.Empty() {
		return 0
	}
	return (float64(r.Last-r.Start) + 1) / math.Exp2(64)
}

// String shows r as a half-open interval of 0x-prefixed hex, as shard
// selectors do: [0x0000000000000000, 0x8000000000000000).
func (r Range) String() string {
	if r.Empty() {
		return "[)"
	}
	start, end := r.bounds()
	return "[" + start + ", " + end + ")"
}

// bounds are r's inclusive start and exclusive end in the selector's
// notation: 16 hex digits, or "0x10000000000000000" for the end of the space.
func (r Range) bounds() (start, end string) {
	start = fmt.Sprintf("0x%016x", r.Start)
	if r.Last == math.MaxUint64 {
		return start, "0x10000000000000000"
	}
	return start, fmt.Sprintf("0x%016x", r.Last+1)
}

// Selector is the shard selector of r on field (NamespaceField for
// namespaced resources), built by k8s.io/apimachinery/pkg/sharding: its
// String is the value of ListOptions.ShardSelector, and its Matches agrees
// with Contains(KeyHash(...)) for namespaced objects. An empty range
// yields nil: no selector selects nothing.
func (r Range) Selector(field string) kubesharding.Selector {
	if r.Empty() {
		return nil
	}
	start, end := r.bounds()
	return kubesharding.NewSelector(kubesharding.ShardRangeRequirement{Key: field, Start: start, End: end})
}

// Assign splits the hash space among n members, in order: member i of n
// gets [i·2^64/n, (i+1)·2^64/n). The ranges are contiguous, cover the
// whole space and do not overlap; each is within one hash of 1/n of it.
// Assign(0) is nil.
func Assign(n int) []Range {
	if n <= 0 {
		return nil
	}
	ranges := make([]Range, n)
	for i := range n {
		ranges[i] = Range{Start: boundary(i, n), Last: math.MaxUint64}
		if i+1 < n {
			ranges[i].Last = boundary(i+1, n) - 1
		}
	}
	return ranges
}

// boundary is floor(i·2^64/n), for 0 <= i < n.
func boundary(i, n int) uint64 {
	q, _ := bits.Div64(uint64(i), 0, uint64(n))
	return q
}
