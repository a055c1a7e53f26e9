//go:build e2e

package e2e

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// What a ring member publishes on its Lease, read from outside as an
// operator would: the tests check the ring through its wire format, not
// through package sharding's internals.
const (
	// servingAnnotation shows the ranges of the hash space the member
	// serves: "[0x…, 0x…)" joined by " ∪ ", or "[)" for none.
	servingAnnotation = "ctrlkit.io/shard-serving"
	// assignmentAnnotation is set on the coordinator's Lease only.
	assignmentAnnotation = "ctrlkit.io/shard-assignment"
	// fullRange and emptyRange are servingAnnotation's whole space and
	// nothing.
	fullRange  = "[0x0000000000000000, 0x10000000000000000)"
	emptyRange = "[)"
	// defaultHysteresis is the imbalance a ring tolerates by default
	// (sharding.Options.Hysteresis).
	defaultHysteresis = 1.15
)

// hashRange is the hashes start … last, both included.
type hashRange struct{ start, last uint64 }

// hashRanges is a member's ranges.
type hashRanges []hashRange

func (rs hashRanges) Contains(h uint64) bool {
	return slices.ContainsFunc(rs, func(r hashRange) bool { return r.start <= h && h <= r.last })
}

func (rs hashRanges) String() string {
	if len(rs) == 0 {
		return emptyRange
	}
	parts := make([]string, len(rs))
	for i, r := range rs {
		end := "0x10000000000000000"
		if r.last != math.MaxUint64 {
			end = fmt.Sprintf("0x%016x", r.last+1)
		}
		parts[i] = fmt.Sprintf("[0x%016x, %s)", r.start, end)
	}
	return strings.Join(parts, " ∪ ")
}

// parseServing reads servingAnnotation.
func parseServing(v string) (hashRanges, error) {
	if v == emptyRange {
		return nil, nil
	}
	var rs hashRanges
	for _, part := range strings.Split(v, " ∪ ") {
		start, end, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(part, "["), ")"), ", ")
		if !ok {
			return nil, fmt.Errorf("serving annotation %q", v)
		}
		r, err := parseRange(start, end)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// parseRange reads a range's start and end ("0x…", end excluded), as in
// servingAnnotation and ctrlkit_shard_range_info's labels.
func parseRange(start, end string) (hashRange, error) {
	first, err := strconv.ParseUint(strings.TrimPrefix(start, "0x"), 16, 64)
	if err != nil {
		return hashRange{}, fmt.Errorf("range start %q: %w", start, err)
	}
	if end == "0x10000000000000000" {
		return hashRange{first, math.MaxUint64}, nil
	}
	after, err := strconv.ParseUint(strings.TrimPrefix(end, "0x"), 16, 64)
	if err != nil || after == 0 {
		return hashRange{}, fmt.Errorf("range end %q: %v", end, err)
	}
	return hashRange{first, after - 1}, nil
}

// ownership is what each member serves, by member ID.
type ownership map[string]hashRanges

// Owner is the member serving h, "" if none.
func (o ownership) Owner(h uint64) string {
	for id, rs := range o {
		if rs.Contains(h) {
			return id
		}
	}
	return ""
}

// ownerOf is the member serving namespace ns.
func (o ownership) ownerOf(ns string) string { return o.Owner(sharding.KeyHash(ns, "")) }

// partition reports whether the members' ranges cover the hash space
// exactly once, each member holding some.
func (o ownership) partition() error {
	var all hashRanges
	for id, rs := range o {
		if len(rs) == 0 {
			return fmt.Errorf("member %s serves nothing", id)
		}
		all = append(all, rs...)
	}
	slices.SortFunc(all, func(a, b hashRange) int {
		switch {
		case a.start < b.start:
			return -1
		case a.start > b.start:
			return 1
		}
		return 0
	})
	next := uint64(0)
	for i, r := range all {
		if r.start != next {
			return fmt.Errorf("the members' ranges %v leave a gap or overlap at 0x%016x", all, next)
		}
		if r.last == math.MaxUint64 {
			if i != len(all)-1 {
				return fmt.Errorf("the members' ranges %v overlap", all)
			}
			return nil
		}
		next = r.last + 1
	}
	return fmt.Errorf("the members' ranges %v do not reach the end of the hash space", all)
}

// parseAssignment reads assignmentAnnotation: cuts "start=member" (start in
// hex, without 0x) joined by ",", sorted by start, the first at 0; each
// member holds the hashes from its cut to the next. It returns the ranges
// each member is assigned, adjacent ones merged.
func parseAssignment(v string) (ownership, error) {
	if v == "" {
		return nil, fmt.Errorf("no assignment")
	}
	o := ownership{}
	cuts := strings.Split(v, ",")
	for i, c := range cuts {
		start, member, ok := strings.Cut(c, "=")
		if !ok {
			return nil, fmt.Errorf("assignment %q: cut %q", v, c)
		}
		first, err := strconv.ParseUint(start, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("assignment %q: %w", v, err)
		}
		last := uint64(math.MaxUint64)
		if i+1 < len(cuts) {
			next, _, _ := strings.Cut(cuts[i+1], "=")
			after, err := strconv.ParseUint(next, 16, 64)
			if err != nil || after <= first {
				return nil, fmt.Errorf("assignment %q: cuts out of order", v)
			}
			last = after - 1
		}
		if rs := o[member]; len(rs) > 0 && rs[len(rs)-1].last+1 == first {
			rs[len(rs)-1].last = last
			continue
		}
		o[member] = append(o[member], hashRange{first, last})
	}
	return o, nil
}
