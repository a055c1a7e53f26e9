package ring_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

// namingSchemes are namespace names people use: numbered with and without
// padding, words, and random suffixes.
var namingSchemes = map[string]func(i int, rng *rand.Rand) string{
	"ns-%d":       func(i int, _ *rand.Rand) string { return fmt.Sprintf("ns-%d", i) },
	"team-%d":     func(i int, _ *rand.Rand) string { return fmt.Sprintf("team-%d", i) },
	"tenant-%03d": func(i int, _ *rand.Rand) string { return fmt.Sprintf("tenant-%03d", i) },
	"prod-<word>": func(i int, _ *rand.Rand) string { return "prod-" + word(i) },
	"random":      func(_ int, rng *rand.Rand) string { return randomName(rng) },
}

// word is the i-th of a fixed list of pronounceable words.
func word(i int) string {
	syllables := []string{"ba", "ko", "ri", "tan", "mel", "su", "vor", "den", "li", "quo", "pex", "ga", "zu", "fin", "hol", "ne", "tra"}
	n := len(syllables)
	return syllables[i%n] + syllables[(i/n)%n] + syllables[(i/n/n+i)%n]
}

func randomName(rng *rand.Rand) string {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 8)
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return "ns-" + string(b)
}

func namespaces(scheme string, n int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	seen := map[string]bool{}
	var names []string
	for i := 0; len(names) < n; i++ {
		name := namingSchemes[scheme](i, rng)
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

func members(n int) []string {
	ms := make([]string, n)
	for i := range ms {
		ms[i] = fmt.Sprintf("replica-%c", 'a'+i)
	}
	return ms
}

func unitKeys(names []string) []ring.Key {
	keys := make([]ring.Key, len(names))
	for i, name := range names {
		keys[i] = ring.Key{Hash: ring.KeyHash(name, ""), Weight: 1}
	}
	return keys
}

func TestRebalanceSharesNamespacesEquallyWhateverTheirNames(t *testing.T) {
	for _, scheme := range slices.Sorted(func(yield func(string) bool) {
		for s := range namingSchemes {
			if !yield(s) {
				return
			}
		}
	}) {
		keys := unitKeys(namespaces(scheme, 300, 7))
		for n := 2; n <= 7; n++ {
			ms := members(n)
			plan := ring.Rebalance(ring.Assignment{}, ms, keys, 0)
			imb := ring.Imbalance(plan.Assignment.Shares(ms, keys))
			equalThirds := ring.Imbalance(equalShares(ms, keys))
			t.Logf("%-12s n=%d imbalance %.3f (equal ranges: %.3f), %d segments", scheme, n, imb, equalThirds, len(plan.Assignment.Cuts))
			if imb > 1.15 {
				t.Errorf("%s, %d members: imbalance %.3f > 1.15", scheme, n, imb)
			}
			assertCoversEveryKeyOnce(t, plan.Assignment, ms, keys)
		}
	}
}

// equalShares are the shares under equal ranges (Assign), for comparison.
func equalShares(ms []string, keys []ring.Key) map[string]int64 {
	var a ring.Assignment
	for i, r := range ring.Assign(len(ms)) {
		a.Cuts = append(a.Cuts, ring.Cut{Start: r.Start, Member: ms[i]})
	}
	return a.Shares(ms, keys)
}

func assertCoversEveryKeyOnce(t *testing.T, a ring.Assignment, ms []string, keys []ring.Key) {
	t.Helper()
	for _, k := range keys {
		var holders []string
		for _, m := range ms {
			for _, r := range a.RangesOf(m) {
				if r.Contains(k.Hash) {
					holders = append(holders, m)
				}
			}
		}
		if len(holders) != 1 || holders[0] != a.Owner(k.Hash) {
			t.Fatalf("key %#x held by %v, owner %q", k.Hash, holders, a.Owner(k.Hash))
		}
	}
}

// zipfSizes are object counts of 300 namespaces from a Zipf law (s=1.1):
// the namespace of rank k holds about 2000·k^-1.1 objects, at least one.
func zipfSizes(n int, rng *rand.Rand) []int64 {
	sizes := make([]int64, n)
	for k := range sizes {
		sizes[k] = max(1, int64(math.Round(2000*math.Pow(float64(k+1), -1.1))))
	}
	rng.Shuffle(n, func(i, j int) { sizes[i], sizes[j] = sizes[j], sizes[i] })
	return sizes
}

func TestRebalanceByObjectsBoundsZipfNamespaces(t *testing.T) {
	for _, scheme := range []string{"team-%d", "tenant-%03d", "random"} {
		rng := rand.New(rand.NewPCG(11, 2))
		names := namespaces(scheme, 300, 3)
		sizes := zipfSizes(len(names), rng)
		byCount, byObjects := unitKeys(names), unitKeys(names)
		var largest, total int64
		for i := range byObjects {
			byObjects[i].Weight = sizes[i]
			largest, total = max(largest, sizes[i]), total+sizes[i]
		}
		for n := 2; n <= 7; n++ {
			ms := members(n)
			objPlan := ring.Rebalance(ring.Assignment{}, ms, byObjects, 0)
			nsPlan := ring.Rebalance(ring.Assignment{}, ms, byCount, 0)
			bound := max(1.3, float64(largest)/(float64(total)/float64(n)))
			objImb := ring.Imbalance(objPlan.Assignment.Shares(ms, byObjects))
			t.Logf("%-12s n=%d counting objects: objects %.3f namespaces %.3f; counting namespaces: objects %.3f namespaces %.3f; bound %.3f",
				scheme, n, objImb, ring.Imbalance(objPlan.Assignment.Shares(ms, byCount)),
				ring.Imbalance(nsPlan.Assignment.Shares(ms, byObjects)), ring.Imbalance(nsPlan.Assignment.Shares(ms, byCount)), bound)
			if objImb > bound {
				t.Errorf("%s, %d members: object imbalance %.3f > %.3f", scheme, n, objImb, bound)
			}
		}
	}
}

func TestRebalanceKeepsABalancedAssignment(t *testing.T) {
	keys := unitKeys(namespaces("team-%d", 300, 1))
	ms := members(3)
	first := ring.Rebalance(ring.Assignment{}, ms, keys, 0)
	again := ring.Rebalance(first.Assignment, ms, keys, 0)
	if again.Changed || again.Moved != 0 {
		t.Errorf("a balanced assignment was changed: moved %d", again.Moved)
	}
	// A few new namespaces within the bound move nothing.
	more := append(slices.Clone(keys), unitKeys([]string{"extra-1", "extra-2", "extra-3"})...)
	if p := ring.Rebalance(first.Assignment, ms, more, 0); p.Changed {
		t.Errorf("3 new namespaces among 300 moved %d keys; want none within the hysteresis bound", p.Moved)
	}
}

func TestRebalanceUnderChurnMovesFewKeysAndStaysInBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var names []string
	for _, s := range []string{"ns-%d", "team-%d", "tenant-%03d"} {
		names = append(names, namespaces(s, 100, 9)...)
	}
	live := []string{"replica-a", "replica-b", "replica-c"}
	next := 'd'
	var a ring.Assignment
	keys := unitKeys(names)
	a = ring.Rebalance(a, live, keys, 0).Assignment
	var joins, leaves, churns, joinMoved, leaveMoved, churnMoves int
	var joinShare, leaveShare float64
	defer func() {
		t.Logf("per join: %.1f keys moved on average (%.2f of a mean share); per leave: %.1f (%.2f); namespace churn: %d rebalances in %d changes",
			float64(joinMoved)/float64(joins), joinShare/float64(joins), float64(leaveMoved)/float64(leaves), leaveShare/float64(leaves), churnMoves, churns)
	}()
	for step := range 300 {
		before := len(live)
		switch op := rng.IntN(4); {
		case op == 0 && len(live) < 7: // join
			live = append(live, fmt.Sprintf("replica-%c", next))
			next++
		case op == 1 && len(live) > 2: // leave or lease expiry: the same to the planner
			i := rng.IntN(len(live))
			live = slices.Delete(live, i, i+1)
		default: // namespace churn: one deleted, one created
			i := rng.IntN(len(names))
			names = slices.Delete(names, i, i+1)
			names = append(names, fmt.Sprintf("churn-%d", step))
			keys = unitKeys(names)
		}
		slices.Sort(live)
		prevShares := a.Shares(live, keys)
		p := ring.Rebalance(a, live, keys, 0)
		shares := p.Assignment.Shares(live, keys)
		mean := float64(len(keys)) / float64(len(live))
		for m, s := range shares {
			if float64(s) > 1.15*mean+1 || float64(s) < mean/1.15-1 {
				t.Fatalf("step %d: %s holds %d keys, mean %.1f: out of bounds", step, m, s, mean)
			}
		}
		assertCoversEveryKeyOnce(t, p.Assignment, live, keys)
		// A membership change moves about 1/n of the keys: the leavers'
		// keys or the joiner's share, plus at most what the bound allows.
		var orphaned int64
		for _, k := range keys {
			if !slices.Contains(live, a.Owner(k.Hash)) {
				orphaned++
			}
		}
		limit := orphaned + int64(math.Ceil(mean)) + 1
		if len(live) > before {
			limit = int64(math.Ceil(mean*1.15)) + 1
		}
		if p.Moved > limit {
			t.Fatalf("step %d (%d → %d members): moved %d keys of %d, want at most %d (shares before %v)", step, before, len(live), p.Moved, len(keys), limit, prevShares)
		}
		switch {
		case len(live) > before:
			joins, joinMoved, joinShare = joins+1, joinMoved+int(p.Moved), joinShare+float64(p.Moved)/mean
		case len(live) < before:
			leaves, leaveMoved, leaveShare = leaves+1, leaveMoved+int(p.Moved), leaveShare+float64(p.Moved)/(float64(len(keys))/float64(before))
		default:
			churns++
			if p.Changed {
				churnMoves++
			}
		}
		a = p.Assignment
	}
}

func TestAssignmentStringRoundTrips(t *testing.T) {
	keys := unitKeys(namespaces("random", 50, 2))
	a := ring.Rebalance(ring.Assignment{}, members(4), keys, 0).Assignment
	b, err := ring.ParseAssignment(a.String())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Cuts, b.Cuts) {
		t.Errorf("ParseAssignment(%q) = %v, want %v", a.String(), b.Cuts, a.Cuts)
	}
	for _, bad := range []string{"1=a", "0=a,0=b", "0=a,5=a", "0=", "zz=a", "0a"} {
		if _, err := ring.ParseAssignment(bad); err == nil {
			t.Errorf("ParseAssignment(%q) succeeded, want an error", bad)
		}
	}
}

func TestAssignmentSelectorJoinsRangesWithOr(t *testing.T) {
	a := ring.Assignment{Cuts: []ring.Cut{{Start: 0, Member: "a"}, {Start: 0x10, Member: "b"}, {Start: 0x20, Member: "a"}}}
	got := a.Selector("a", ring.NamespaceField).String()
	want := "shardRange(object.metadata.namespace, '0x0000000000000000', '0x0000000000000010') || shardRange(object.metadata.namespace, '0x0000000000000020', '0x10000000000000000')"
	if got != want {
		t.Errorf("Selector = %q, want %q", got, want)
	}
	if a.Selector("c", ring.NamespaceField) != nil {
		t.Error("a member without segments got a selector")
	}
}

// With more members than keys, every member still holds a segment (its
// informers need a range to list), and the assignment stays valid and
// stable round after round.
func TestRebalanceGivesEveryMemberASegment(t *testing.T) {
	keys := unitKeys([]string{"default", "kube-system", "kube-public", "kube-node-lease"})
	for n := 1; n <= 7; n++ {
		ms := members(n)
		p := ring.Rebalance(ring.Assignment{}, ms, keys, 0)
		if got := p.Assignment.Members(); !slices.Equal(got, ms) {
			t.Fatalf("%d members over 4 keys: segments for %v, want all of %v (%v)", n, got, ms, p.Assignment)
		}
		if _, err := ring.ParseAssignment(p.Assignment.String()); err != nil {
			t.Fatalf("%d members: %v", n, err)
		}
		for _, k := range keys {
			if p.Assignment.Owner(k.Hash) == "" {
				t.Errorf("%d members: key %#x has no member", n, k.Hash)
			}
		}
		again := ring.Rebalance(p.Assignment, ms, keys, 0)
		if again.Changed {
			t.Errorf("%d members: the next round changed the assignment %v to %v", n, p.Assignment, again.Assignment)
		}
	}
}
