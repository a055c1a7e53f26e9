package ring

import (
	"cmp"
	"slices"
	"strings"

	kubesharding "k8s.io/apimachinery/pkg/sharding"
)

// Ranges is a set of hashes made of Ranges: what one member of an
// Assignment holds. Invariants: no range is empty, the ranges are sorted
// by Start, and neither overlap nor touch (a range ends at least one hash
// before the next starts). The nil Ranges holds nothing.
type Ranges []Range

// NewRanges is the set of the hashes in any of rs, in normal form.
func NewRanges(rs ...Range) Ranges {
	sorted := slices.SortedFunc(slices.Values(rs), func(a, b Range) int { return cmp.Compare(a.Start, b.Start) })
	var out Ranges
	for _, r := range sorted {
		if r.Empty() {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Last != ^uint64(0) && r.Start <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Empty reports whether rs holds no hash.
func (rs Ranges) Empty() bool { return len(rs) == 0 }

// Contains reports whether h is in rs.
func (rs Ranges) Contains(h uint64) bool {
	i, _ := slices.BinarySearchFunc(rs, h, func(r Range, h uint64) int { return cmp.Compare(r.Last, h) })
	return i < len(rs) && rs[i].Contains(h)
}

// Intersect is the set of hashes in both rs and o.
func (rs Ranges) Intersect(o Ranges) Ranges {
	var out Ranges
	for _, a := range rs {
		for _, b := range o {
			if c := a.Intersect(b); !c.Empty() {
				out = append(out, c)
			}
		}
	}
	return NewRanges(out...)
}

// Equal reports whether rs and o hold the same hashes.
func (rs Ranges) Equal(o Ranges) bool { return slices.Equal(rs, o) }

// Fraction is rs's share of the hash space, between 0 and 1.
func (rs Ranges) Fraction() float64 {
	var f float64
	for _, r := range rs {
		f += r.Fraction()
	}
	return f
}

// String shows the ranges joined by " ∪ ", "[)" for none.
func (rs Ranges) String() string {
	if rs.Empty() {
		return EmptyRange.String()
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, " ∪ ")
}

// Selector is the shard selector of rs on field: one shardRange term per
// range, joined with ||. Nil if rs is empty: no selector selects nothing.
func (rs Ranges) Selector(field string) kubesharding.Selector {
	if rs.Empty() {
		return nil
	}
	reqs := make([]kubesharding.ShardRangeRequirement, len(rs))
	for i, r := range rs {
		start, end := r.bounds()
		reqs[i] = kubesharding.ShardRangeRequirement{Key: field, Start: start, End: end}
	}
	return kubesharding.NewSelector(reqs...)
}
