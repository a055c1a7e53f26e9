package ring_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

// quiet discards logs: the simulation's own log is shown on failure.
var quiet = funcr.New(func(string, string) {}, funcr.Options{})

// Timings of the simulated ring. A reconcile lasts at most maxReconcile,
// below LeaseDuration − RenewDeadline: the protocol's assumption (a member
// that lost contact stops handing out keys after RenewDeadline, and its
// in-flight reconciles must be over before its Lease expires).
const (
	simLease     = 5 * time.Second
	simRenew     = 3 * time.Second
	simRetry     = 1 * time.Second
	maxReconcile = 1500 * time.Millisecond
)

// simMember is one replica of the simulation.
type simMember struct {
	name             string
	ring             *ring.Ring
	partitionedUntil time.Time // until then its API requests fail; it keeps running
	inFlight         map[uint64]simReconcile
}

type simReconcile struct {
	release func()
	start   time.Time
}

// sim is a ring of replicas sharing one fake API server and one fake
// clock, driven step by step.
type sim struct {
	t       *testing.T
	rng     *rand.Rand
	clock   *testingclock.FakeClock
	tracker k8stesting.ObjectTracker
	members []*simMember
	joined  int
	keys    []uint64        // the keys reconciles are started for
	exists  map[uint64]bool // the keys the ring balances: namespaces come and go
	log     []string        // the last steps, shown on failure
}

func newSim(t *testing.T, seed uint64) *sim {
	s := &sim{
		t:       t,
		rng:     rand.New(rand.NewPCG(seed, seed)),
		clock:   testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)),
		tracker: k8stesting.NewObjectTracker(scheme.Scheme, scheme.Codecs.UniversalDecoder()),
	}
	s.exists = map[uint64]bool{}
	for i := range 16 {
		h := ring.KeyHash(fmt.Sprintf("ns-%d", i), "")
		s.keys = append(s.keys, h)
		s.exists[h] = i%2 == 0
	}
	return s
}

func (s *sim) logf(format string, args ...any) {
	s.log = append(s.log, fmt.Sprintf("%s ", s.clock.Now().Format("04:05.000"))+fmt.Sprintf(format, args...))
	if len(s.log) > 60 {
		s.log = s.log[1:]
	}
}

func (s *sim) fail(format string, args ...any) {
	s.t.Helper()
	for _, l := range s.log {
		s.t.Log(l)
	}
	s.t.Fatalf(format, args...)
}

// join starts a new replica with a client of its own on the shared store.
func (s *sim) join() {
	s.joined++
	m := &simMember{name: fmt.Sprintf("m%d", s.joined), inFlight: map[uint64]simReconcile{}}
	client := &fake.Clientset{}
	react := k8stesting.ObjectReaction(s.tracker)
	client.AddReactor("*", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if s.clock.Now().Before(m.partitionedUntil) {
			return true, nil, errors.New("simulated partition")
		}
		return react(a)
	})
	member, err := ring.New(ring.Options{
		Name:  "sim",
		Lease: lease.Config{Client: client, Namespace: "kube-system", ID: m.name, LeaseDuration: simLease, RenewDeadline: simRenew, RetryPeriod: simRetry},
		Clock: s.clock, Logger: quiet, Keys: s.existingKeys,
	})
	if err != nil {
		s.t.Fatal(err)
	}
	m.ring = member
	s.members = append(s.members, m)
	s.logf("%s joins", m.name)
}

// existingKeys is the members' Options.Keys.
func (s *sim) existingKeys() ([]ring.Key, bool) {
	var keys []ring.Key
	for _, h := range s.keys {
		if s.exists[h] {
			keys = append(keys, ring.Key{Hash: h, Weight: 1})
		}
	}
	return keys, true
}

func (s *sim) remove(m *simMember) {
	s.members = slices.DeleteFunc(s.members, func(o *simMember) bool { return o == m })
}

// start tries to begin a reconcile of key h on m, and checks that no
// other replica reconciles h.
func (s *sim) start(m *simMember, h uint64) {
	if _, busy := m.inFlight[h]; busy {
		return // one worker per key within a replica: the queue's job
	}
	release, a := m.ring.Acquire(h)
	if a != ring.Admitted {
		return
	}
	for _, o := range s.members {
		if _, ok := o.inFlight[h]; ok && o != m {
			s.fail("key %#x reconciled by %s and %s at once", h, o.name, m.name)
		}
	}
	m.inFlight[h] = simReconcile{release: release, start: s.clock.Now()}
	s.logf("%s starts %#x", m.name, h)
}

func (s *sim) finish(m *simMember, h uint64) {
	m.inFlight[h].release()
	delete(m.inFlight, h)
	s.logf("%s finishes %#x", m.name, h)
}

// advance moves the clock on, ending first the reconciles that would
// outlive maxReconcile (a ReconcileTimeout would cancel them).
func (s *sim) advance(d time.Duration) {
	until := s.clock.Now().Add(d)
	for _, m := range s.members {
		for h, rc := range m.inFlight {
			if !rc.start.Add(maxReconcile).After(until) {
				s.finish(m, h)
			}
		}
	}
	s.clock.SetTime(until)
}

func (s *sim) sync(m *simMember) {
	err := m.ring.Sync(context.Background())
	s.logf("%s syncs: members %v serving %v err %v", m.name, m.ring.Members(), m.ring.Serving(), err)
	if m.ring.Left() {
		if len(m.inFlight) > 0 {
			s.fail("%s left with %d reconciles in flight", m.name, len(m.inFlight))
		}
		s.remove(m)
		s.logf("%s has left", m.name)
	}
}

func (s *sim) pick() *simMember { return s.members[s.rng.IntN(len(s.members))] }

// step takes one random action.
func (s *sim) step() {
	if len(s.members) == 0 {
		s.join()
		return
	}
	// Reconciles are started often and mostly end by running out of time,
	// so that handovers happen with reconciles in flight.
	switch p := s.rng.IntN(100); {
	case p < 15:
		s.advance(time.Duration(s.rng.Int64N(int64(simRetry))))
	case p < 30:
		for _, i := range s.rng.Perm(len(s.members)) {
			if i < len(s.members) { // a member may leave mid-round
				s.sync(s.members[i])
			}
		}
	case p < 45:
		s.sync(s.pick())
	case p < 83:
		s.start(s.pick(), s.keys[s.rng.IntN(len(s.keys))])
	case p < 85:
		h := s.keys[s.rng.IntN(len(s.keys))]
		s.exists[h] = !s.exists[h]
		s.logf("namespace %#x exists: %v", h, s.exists[h])
	case p < 97:
		m := s.pick()
		for h := range m.inFlight {
			s.finish(m, h)
			break
		}
	case p < 98:
		if len(s.members) < 7 {
			s.join()
		}
	case p < 99:
		if s.rng.IntN(2) == 0 {
			m := s.pick()
			m.ring.Leave()
			s.logf("%s leaves", m.name)
		} else {
			// A crash: the process and its reconciles are gone, its Lease stays.
			m := s.pick()
			s.remove(m)
			s.logf("%s crashes", m.name)
		}
	default:
		m := s.pick()
		d := 2*time.Second + time.Duration(s.rng.Int64N(int64(10*time.Second)))
		m.partitionedUntil = s.clock.Now().Add(d)
		s.logf("%s partitioned for %s", m.name, d)
	}
}

// settle heals every partition and runs quiet rounds until the ring has
// converged: then every key has exactly one owner.
func (s *sim) settle() {
	for _, m := range s.members {
		m.partitionedUntil = time.Time{}
	}
	for range 3*int(simLease/simRetry) + 10 {
		s.advance(simRetry)
		for _, m := range slices.Clone(s.members) {
			for h := range m.inFlight {
				s.finish(m, h)
			}
			s.sync(m)
		}
	}
	if len(s.members) == 0 {
		return
	}
	for _, h := range s.keys {
		var owners []string
		for _, m := range s.members {
			release, a := m.ring.Acquire(h)
			if a == ring.Admitted {
				release()
				owners = append(owners, m.name)
			}
		}
		if len(owners) != 1 {
			s.fail("after settling, key %#x is served by %v, want exactly one member of %d", h, owners, len(s.members))
		}
	}
}

// TestHandoverNeverLetsTwoMembersHoldAKey drives replicas through random
// joins, clean leaves, crashes (their Leases expire), partitions (their
// renewals fail while they keep running), clock jumps, namespaces created
// and deleted (the coordinator rebalances) and reconciles of random keys, and checks at every admission that no other replica has
// the key in flight. Each run then settles to check that the ring still
// hands every key to exactly one member (safety is not bought by serving
// nothing).
func TestHandoverNeverLetsTwoMembersHoldAKey(t *testing.T) {
	seeds := 30
	if testing.Short() || raceEnabled {
		seeds = 5
	}
	for seed := range uint64(seeds) {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			s := newSim(t, seed)
			for range 3 {
				s.join()
			}
			for range 4000 {
				s.step()
			}
			s.settle()
		})
	}
}
