package ring_test

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes/fake"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

// ringOnClock is members on one fake API server and one fake clock, synced by
// hand, over a fixed set of namespaces.
type ringOnClock struct {
	t       *testing.T
	client  *fake.Clientset
	clock   *testingclock.FakeClock
	keys    []ring.Key
	members map[string]*ring.Ring
}

func newRingOnClock(t *testing.T, namespaces []string) *ringOnClock {
	c := &ringOnClock{t: t, client: fake.NewClientset(), members: map[string]*ring.Ring{},
		clock: testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))}
	for _, ns := range namespaces {
		c.keys = append(c.keys, ring.Key{Hash: ring.KeyHash(ns, ""), Weight: 1})
	}
	return c
}

func (c *ringOnClock) join(id string) {
	r, err := ring.New(ring.Options{
		Name:  "test",
		Lease: lease.Config{Client: c.client, Namespace: "kube-system", ID: id, LeaseDuration: 5 * time.Second, RenewDeadline: 3 * time.Second, RetryPeriod: time.Second},
		Clock: c.clock, Logger: quiet,
		Keys: func() ([]ring.Key, bool) { return c.keys, true },
	})
	if err != nil {
		c.t.Fatal(err)
	}
	c.members[id] = r
}

// roundsUntil runs rounds, one a second, until cond holds.
func (c *ringOnClock) roundsUntil(cond func() bool) {
	c.t.Helper()
	for range 30 {
		if cond() {
			return
		}
		c.round()
	}
	c.t.Fatal("condition not met in 30 rounds")
}

// round moves the clock on a second and syncs every member, in ID order.
func (c *ringOnClock) round() {
	c.t.Helper()
	c.clock.Step(time.Second)
	for _, id := range slices.Sorted(maps.Keys(c.members)) {
		if err := c.members[id].Sync(c.t.Context()); err != nil {
			c.t.Fatal(err)
		}
	}
}

// settle runs rounds until every member serves all of its target and all
// hold one assignment.
func (c *ringOnClock) settle() ring.Assignment {
	c.t.Helper()
	for range 30 {
		c.round()
		if a, ok := c.agreed(); ok {
			return a
		}
	}
	c.t.Fatal("the ring did not settle in 30 rounds")
	return ring.Assignment{}
}

func (c *ringOnClock) agreed() (ring.Assignment, bool) {
	var first *ring.Assignment
	for id, r := range c.members {
		a := r.Assignment()
		target, _ := r.Target()
		if len(a.Cuts) == 0 || !r.Serving().Equal(target) || !slices.Contains(a.Members(), id) {
			return a, false
		}
		if first != nil && first.ID() != a.ID() {
			return a, false
		}
		first = &a
	}
	return *first, first != nil
}

// moved counts the namespaces whose member differs between a and b.
func (c *ringOnClock) moved(a, b ring.Assignment) int {
	n := 0
	for _, k := range c.keys {
		if a.Owner(k.Hash) != b.Owner(k.Hash) {
			n++
		}
	}
	return n
}

func (c *ringOnClock) imbalance(a ring.Assignment) float64 {
	return ring.Imbalance(a.Shares(a.Members(), c.keys))
}

// A ring cuts where the namespaces are: 300 namespaces named ns-0 …
// ns-299, which equal thirds would split 10/290/0, end up within the
// hysteresis bound on every member; a join moves about a fair share of
// the new ring, a leave only the leaver's, and a member joining with the
// smallest ID (the new coordinator) takes the ring's cuts over instead of
// laying them out afresh.
func TestRingBalancesOrdinaryNamespacesAndMovesLittle(t *testing.T) {
	var namespaces []string
	for i := range 300 {
		namespaces = append(namespaces, fmt.Sprintf("ns-%d", i))
	}
	c := newRingOnClock(t, namespaces)
	for _, id := range []string{"b", "c", "d"} {
		c.join(id)
	}
	three := c.settle()
	if got := c.imbalance(three); got > ring.DefaultHysteresis {
		t.Fatalf("3 members: imbalance %.3f, want at most %.2f; shares %v", got, ring.DefaultHysteresis, three.Shares(three.Members(), c.keys))
	}

	c.join("e")
	four := c.settle()
	fair := float64(len(namespaces)) / 4
	if got := c.imbalance(four); got > ring.DefaultHysteresis {
		t.Errorf("4 members: imbalance %.3f", got)
	}
	if m := c.moved(three, four); float64(m) > ring.DefaultHysteresis*fair {
		t.Errorf("a join moved %d namespaces, want about a fair share (%.0f)", m, fair)
	}

	t.Logf("3 members: imbalance %.3f; join of a 4th: moved %d, imbalance %.3f", c.imbalance(three), c.moved(three, four), c.imbalance(four))
	c.join("a") // the smallest ID: it coordinates from now on
	five := c.settle()
	if m := c.moved(four, five); float64(m) > ring.DefaultHysteresis*float64(len(namespaces))/5 {
		t.Errorf("a join of the new coordinator moved %d namespaces, want about a fair share (%.0f)", m, float64(len(namespaces))/5)
	}

	t.Logf("join of the new coordinator: moved %d, imbalance %.3f", c.moved(four, five), c.imbalance(five))

	// c crashes: its Lease expires and only its namespaces move.
	held := five.Shares(five.Members(), c.keys)["c"]
	delete(c.members, "c")
	c.roundsUntil(func() bool {
		for _, r := range c.members {
			if slices.Contains(r.Members(), "c") {
				return false
			}
		}
		return true
	})
	four = c.settle()
	if slices.Contains(four.Members(), "c") {
		t.Fatalf("c still holds %v after its Lease expired", four.RangesOf("c"))
	}
	if m := c.moved(five, four); int64(m) != held {
		t.Errorf("a crash moved %d namespaces, want only the %d of the member that crashed", m, held)
	}
	t.Logf("crash: moved %d, the crashed member held %d", c.moved(five, four), held)
	if got := c.imbalance(four); got > ring.DefaultHysteresis {
		t.Errorf("after the crash: imbalance %.3f", got)
	}
}
