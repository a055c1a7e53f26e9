package ring

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	kubesharding "k8s.io/apimachinery/pkg/sharding"
)

// Cut is where one member's segment of the hash space begins: it holds
// the hashes from Start to the next cut's Start, excluded, or to the end
// of the space.
type Cut struct {
	Start  uint64
	Member string
}

// Assignment maps the whole hash space to members through cut points: a
// member may hold several segments. Invariants: Cuts is sorted by Start,
// strictly increasing; the first cut starts at 0; two neighbouring cuts
// name different members. The zero Assignment assigns nothing.
type Assignment struct {
	Cuts []Cut
}

// Owner is the member that hash h is assigned to, "" if none.
func (a Assignment) Owner(h uint64) string {
	i, found := slices.BinarySearchFunc(a.Cuts, h, func(c Cut, h uint64) int {
		switch {
		case c.Start < h:
			return -1
		case c.Start > h:
			return 1
		}
		return 0
	})
	if !found {
		i--
	}
	if i < 0 {
		return ""
	}
	return a.Cuts[i].Member
}

// RangesOf is member's segments; nil if it holds none.
func (a Assignment) RangesOf(member string) Ranges {
	var rs []Range
	for i, c := range a.Cuts {
		if c.Member != member {
			continue
		}
		r := Range{Start: c.Start, Last: math.MaxUint64}
		if i+1 < len(a.Cuts) {
			r.Last = a.Cuts[i+1].Start - 1
		}
		rs = append(rs, r)
	}
	return NewRanges(rs...)
}

// Members is the members holding a segment, sorted.
func (a Assignment) Members() []string {
	ms := make([]string, 0, len(a.Cuts))
	for _, c := range a.Cuts {
		ms = append(ms, c.Member)
	}
	slices.Sort(ms)
	return slices.Compact(ms)
}

// String is the assignment's form in a Lease annotation: the cuts as
// hex start "=" member, joined by commas. ParseAssignment reads it.
func (a Assignment) String() string {
	parts := make([]string, len(a.Cuts))
	for i, c := range a.Cuts {
		parts[i] = strconv.FormatUint(c.Start, 16) + "=" + c.Member
	}
	return strings.Join(parts, ",")
}

// ParseAssignment reads Assignment.String's form, and checks the
// invariants of Assignment.
func ParseAssignment(s string) (Assignment, error) {
	if s == "" {
		return Assignment{}, nil
	}
	var a Assignment
	for _, part := range strings.Split(s, ",") {
		start, member, ok := strings.Cut(part, "=")
		if !ok || member == "" {
			return Assignment{}, fmt.Errorf("sharding: assignment %q: cut %q is not start=member", s, part)
		}
		h, err := strconv.ParseUint(start, 16, 64)
		if err != nil {
			return Assignment{}, fmt.Errorf("sharding: assignment %q: cut %q: %w", s, part, err)
		}
		a.Cuts = append(a.Cuts, Cut{Start: h, Member: member})
	}
	if err := a.validate(); err != nil {
		return Assignment{}, fmt.Errorf("sharding: assignment %q: %w", s, err)
	}
	return a, nil
}

func (a Assignment) validate() error {
	for i, c := range a.Cuts {
		switch {
		case i == 0 && c.Start != 0:
			return errors.New("the first cut must start at 0")
		case i > 0 && c.Start <= a.Cuts[i-1].Start:
			return errors.New("cuts must be in increasing order")
		case i > 0 && c.Member == a.Cuts[i-1].Member:
			return errors.New("neighbouring cuts must name different members")
		}
	}
	return nil
}

// Selector is the shard selector of member's segments on field: their
// shardRange terms joined with ||. Nil if the member holds nothing.
func (a Assignment) Selector(member, field string) kubesharding.Selector {
	return a.RangesOf(member).Selector(field)
}

// ID names the assignment in DrainedForAnnotation: a digest of its
// String, short enough to repeat on every member's Lease.
func (a Assignment) ID() string {
	if len(a.Cuts) == 0 {
		return ""
	}
	h := fnv.New64a()
	h.Write([]byte(a.String()))
	return strconv.FormatUint(h.Sum64(), 16)
}

// Shares is each member's share of keys: the sum of the weights of the
// keys it is assigned. Every member of members appears, with 0 if it holds
// no key.
func (a Assignment) Shares(members []string, keys []Key) map[string]int64 {
	shares := make(map[string]int64, len(members))
	for _, m := range members {
		shares[m] = 0
	}
	for _, k := range keys {
		if o := a.Owner(k.Hash); o != "" {
			shares[o] += k.Weight
		}
	}
	return shares
}

// Imbalance is the largest share over the mean share of members: 1 is a
// perfect balance. It is 1 when there is nothing to share.
func Imbalance(shares map[string]int64) float64 {
	var total, largest int64
	for _, s := range shares {
		total += s
		largest = max(largest, s)
	}
	if total == 0 || len(shares) == 0 {
		return 1
	}
	return float64(largest) / (float64(total) / float64(len(shares)))
}
