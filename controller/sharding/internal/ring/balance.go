package ring

import (
	"cmp"
	"math"
	"slices"
)

// DefaultHysteresis is the imbalance Rebalance tolerates before it moves
// keys: a member may hold up to 15 % more than the mean share, and must
// hold at least mean/1.15, unless a single key is larger.
const DefaultHysteresis = 1.15

// Key is one shard key that exists (a namespace, or a cluster-scoped
// object's name) and its weight in a member's share: 1 to count keys, or
// the number of objects under it to count objects.
type Key struct {
	Hash   uint64
	Weight int64
}

// Plan is Rebalance's answer.
type Plan struct {
	// Assignment is the assignment to adopt: the previous one when it was
	// within bounds.
	Assignment Assignment
	// Moved is the weight of the keys whose member changed (keys of
	// members that left included); zero when Changed is false.
	Moved int64
	// Changed reports whether Assignment differs from the previous one.
	Changed bool
}

// Rebalance decides the cut points of members over keys, starting from
// prev (the zero Assignment for a new ring), with minimal movement: keys
// whose member is still in the ring stay with it unless its share is out
// of bounds, and only as many keys move as restore the balance.
//
// The previous assignment is kept as it is while every member is in it,
// every member of it is in members, and no share is out of the bound
// hysteresis: largest/mean ≤ hysteresis and smallest/mean ≥
// 1/hysteresis (a share made of one key larger than that passes). Else
// members above the mean share give up keys from the top of their hash
// order until the closest to the mean, and keys of members that left and
// keys given up go, in hash order, to the members below the mean, each
// until the closest to the mean: a join takes about 1/n of the keys, a
// leave moves only the leaver's. A new ring is the same with every key
// given up: members, sorted, take contiguous runs of the sorted keys.
//
// With no keys at all, the hash space is split into equal parts (Assign),
// members in sorted order. A member that gets no key still gets a segment
// of the widest gap between keys, so that its informers have a range to
// list (a member with no range could not sync them). Members must be distinct; hysteresis below 1
// means DefaultHysteresis.
func Rebalance(prev Assignment, members []string, keys []Key, hysteresis float64) Plan {
	if hysteresis < 1 {
		hysteresis = DefaultHysteresis
	}
	members = slices.Sorted(slices.Values(members))
	if len(members) == 0 {
		return Plan{Changed: len(prev.Cuts) > 0, Moved: total(keys)}
	}
	keys = mergeKeys(keys)
	if len(keys) == 0 {
		if len(prev.Cuts) > 0 && slices.Equal(prev.Members(), members) {
			return Plan{Assignment: prev}
		}
		next := equalAssignment(members)
		return Plan{Assignment: next, Changed: !slices.Equal(prev.Cuts, next.Cuts)}
	}
	if withinBounds(prev, members, keys, hysteresis) {
		return Plan{Assignment: prev}
	}

	in := make(map[string]bool, len(members))
	for _, m := range members {
		in[m] = true
	}
	owner := make([]string, len(keys))
	shares := make(map[string]int64, len(members))
	for _, m := range members {
		shares[m] = 0
	}
	for i, k := range keys {
		if o := prev.Owner(k.Hash); in[o] {
			owner[i] = o
			shares[o] += k.Weight
		}
	}
	mean := float64(total(keys)) / float64(len(members))

	// Members above the mean give up keys from the top of their hash
	// order, while that brings them closer to the mean; a key larger than
	// the mean share stays where it is.
	for i := len(keys) - 1; i >= 0; i-- {
		o, w := owner[i], keys[i].Weight
		if o != "" && float64(w) <= mean && float64(shares[o])-mean > float64(w)/2 {
			shares[o] -= w
			owner[i] = ""
		}
	}
	// Heavy keys without a member (over an eighth of the mean share) go
	// first, largest first, each to the member with the smallest share:
	// placed in hash order they could overshoot a member by half their
	// weight.
	var heavy []int
	for i, k := range keys {
		if owner[i] == "" && float64(k.Weight) > mean/8 {
			heavy = append(heavy, i)
		}
	}
	slices.SortStableFunc(heavy, func(a, b int) int { return cmp.Compare(keys[b].Weight, keys[a].Weight) })
	for _, i := range heavy {
		m := smallest(members, shares)
		owner[i] = m
		shares[m] += keys[i].Weight
	}
	// The other keys without a member go in hash order to the members
	// below the mean, each filled until the closest to it: contiguous runs.
	var receivers []string
	for _, m := range members {
		if float64(shares[m]) < mean {
			receivers = append(receivers, m)
		}
	}
	r := 0
	for i, k := range keys {
		if owner[i] != "" {
			continue
		}
		for r < len(receivers) && mean-float64(shares[receivers[r]]) <= float64(k.Weight)/2 {
			r++
		}
		m := ""
		if r < len(receivers) {
			m = receivers[r]
		} else {
			m = smallest(members, shares)
		}
		owner[i] = m
		shares[m] += k.Weight
	}

	next := withEmptySegments(cutsOf(keys, owner), members, keys)
	if len(prev.Cuts) > 0 && slices.Equal(prev.Members(), members) && Imbalance(next.Shares(members, keys)) >= Imbalance(prev.Shares(members, keys)) {
		// Out of bounds, but no better to be had: moving keys would
		// only churn.
		return Plan{Assignment: prev}
	}
	var moved int64
	for i, k := range keys {
		if prev.Owner(k.Hash) != owner[i] {
			moved += k.Weight
		}
	}
	return Plan{Assignment: next, Moved: moved, Changed: !slices.Equal(prev.Cuts, next.Cuts)}
}

// withinBounds reports whether prev can be kept: it assigns every key to
// one of members, every member holds a segment, and no share is out of
// the hysteresis bound.
func withinBounds(prev Assignment, members []string, keys []Key, hysteresis float64) bool {
	if len(prev.Cuts) == 0 || !slices.Equal(prev.Members(), members) {
		return false
	}
	shares := prev.Shares(members, keys)
	mean := float64(total(keys)) / float64(len(members))
	largestKey := slices.MaxFunc(keys, func(a, b Key) int { return cmp.Compare(a.Weight, b.Weight) }).Weight
	for _, s := range shares {
		if float64(s) > hysteresis*mean && s > largestKey {
			return false
		}
		if float64(s) < mean/hysteresis {
			return false
		}
	}
	return true
}

// cutsOf is the assignment giving each key its owner: a segment starts at
// each key whose owner differs from the previous key's, the first at 0.
func cutsOf(keys []Key, owner []string) Assignment {
	var a Assignment
	for i, k := range keys {
		switch {
		case i == 0:
			a.Cuts = append(a.Cuts, Cut{Start: 0, Member: owner[0]})
		case owner[i] != owner[i-1]:
			a.Cuts = append(a.Cuts, Cut{Start: k.Hash, Member: owner[i]})
		}
	}
	return a
}

// withEmptySegments gives each member that a holds no segment of the
// upper half of the widest gap of the hash space between two boundaries
// (keys and cuts), so that it has a range to list and watch, and keys
// created there later. Keys are sorted and distinct.
func withEmptySegments(a Assignment, members []string, keys []Key) Assignment {
	for _, m := range members {
		if len(a.RangesOf(m)) > 0 {
			continue
		}
		bounds := make([]uint64, 0, len(keys)+len(a.Cuts))
		for _, k := range keys {
			bounds = append(bounds, k.Hash)
		}
		for _, c := range a.Cuts {
			bounds = append(bounds, c.Start)
		}
		slices.Sort(bounds)
		bounds = slices.Compact(bounds)
		var gap Range // the widest run of hashes strictly between bounds
		for i, b := range bounds {
			g := Range{Start: b + 1, Last: math.MaxUint64}
			if i+1 < len(bounds) {
				g.Last = bounds[i+1] - 1
			}
			if b != math.MaxUint64 && !g.Empty() && (gap.Empty() || g.Last-g.Start > gap.Last-gap.Start) {
				gap = g
			}
		}
		if gap.Empty() || gap.Last == gap.Start {
			return a // no room for a segment that holds no key
		}
		mid := gap.Start + (gap.Last-gap.Start)/2 + 1
		owner := a.Owner(mid)
		a.Cuts = append(a.Cuts, Cut{Start: mid, Member: m})
		if next := gap.Last + 1; gap.Last != math.MaxUint64 && !slices.ContainsFunc(a.Cuts, func(c Cut) bool { return c.Start == next }) {
			a.Cuts = append(a.Cuts, Cut{Start: next, Member: owner})
		}
		slices.SortFunc(a.Cuts, func(x, y Cut) int { return cmp.Compare(x.Start, y.Start) })
	}
	return a
}

// equalAssignment splits the space into equal parts, one per member.
func equalAssignment(members []string) Assignment {
	var a Assignment
	for i, r := range Assign(len(members)) {
		a.Cuts = append(a.Cuts, Cut{Start: r.Start, Member: members[i]})
	}
	return a
}

// mergeKeys sorts keys by hash and merges keys of one hash (they cannot
// be told apart), dropping those of no weight.
func mergeKeys(keys []Key) []Key {
	sorted := slices.SortedFunc(slices.Values(keys), func(a, b Key) int { return cmp.Compare(a.Hash, b.Hash) })
	out := sorted[:0]
	for _, k := range sorted {
		switch {
		case k.Weight <= 0:
		case len(out) > 0 && out[len(out)-1].Hash == k.Hash:
			out[len(out)-1].Weight += k.Weight
		default:
			out = append(out, k)
		}
	}
	return out
}

func total(keys []Key) int64 {
	var t int64
	for _, k := range keys {
		t += max(k.Weight, 0)
	}
	return t
}

// smallest is the member with the smallest share, the first in order on
// a tie.
func smallest(members []string, shares map[string]int64) string {
	best, least := "", int64(math.MaxInt64)
	for _, m := range members {
		if shares[m] < least {
			best, least = m, shares[m]
		}
	}
	return best
}
