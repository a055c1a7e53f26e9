package ring_test

import (
	"math"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

func TestAssignCoversTheSpaceWithoutGapOrOverlap(t *testing.T) {
	for n := 1; n <= 7; n++ {
		ranges := ring.Assign(n)
		if len(ranges) != n {
			t.Fatalf("Assign(%d): %d ranges", n, len(ranges))
		}
		if ranges[0].Start != 0 {
			t.Errorf("Assign(%d): first range starts at %#x, want 0", n, ranges[0].Start)
		}
		if ranges[n-1].Last != math.MaxUint64 {
			t.Errorf("Assign(%d): last range ends at %#x, want the end of the space", n, ranges[n-1].Last)
		}
		var total float64
		for i, r := range ranges {
			if r.Empty() {
				t.Errorf("Assign(%d)[%d] is empty", n, i)
			}
			if i > 0 && r.Start != ranges[i-1].Last+1 {
				t.Errorf("Assign(%d)[%d] starts at %#x, want %#x right after the previous range", n, i, r.Start, ranges[i-1].Last+1)
			}
			total += r.Fraction()
			if d := r.Fraction() - 1/float64(n); math.Abs(d) > 1e-12 {
				t.Errorf("Assign(%d)[%d] holds %v of the space, want 1/%d", n, i, r.Fraction(), n)
			}
		}
		if math.Abs(total-1) > 1e-12 {
			t.Errorf("Assign(%d) covers %v of the space", n, total)
		}
		// Every hash is in exactly one range, the boundaries included.
		probes := []uint64{0, 1, math.MaxUint64, math.MaxUint64 - 1}
		for _, r := range ranges {
			probes = append(probes, r.Start, r.Last, r.Start-1, r.Last+1)
		}
		for _, h := range probes {
			owners := 0
			for _, r := range ranges {
				if r.Contains(h) {
					owners++
				}
			}
			if owners != 1 {
				t.Errorf("Assign(%d): hash %#x is in %d ranges", n, h, owners)
			}
		}
	}
}

func TestRangeIntersect(t *testing.T) {
	a := ring.Range{Start: 10, Last: 20}
	for _, tc := range []struct {
		b, want ring.Range
	}{
		{ring.Range{Start: 15, Last: 30}, ring.Range{Start: 15, Last: 20}},
		{ring.Range{Start: 0, Last: 10}, ring.Range{Start: 10, Last: 10}},
		{ring.Range{Start: 21, Last: 30}, ring.EmptyRange},
		{ring.EmptyRange, ring.EmptyRange},
		{ring.FullRange, a},
	} {
		if got := a.Intersect(tc.b); got != tc.want {
			t.Errorf("%v ∩ %v = %v, want %v", a, tc.b, got, tc.want)
		}
	}
}

func TestSelectorString(t *testing.T) {
	ranges := ring.Assign(2)
	for i, want := range []string{
		"shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')",
		"shardRange(object.metadata.namespace, '0x8000000000000000', '0x10000000000000000')",
	} {
		if got := ranges[i].Selector(ring.NamespaceField).String(); got != want {
			t.Errorf("range %d: selector %q, want %q", i, got, want)
		}
	}
	if ring.EmptyRange.Selector(ring.NamespaceField) != nil {
		t.Error("the empty range has a selector")
	}
}
