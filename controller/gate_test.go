package controller_test

import (
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// fakeGate admits the keys in admit, retries those in later after a
// second, and drops the others; it counts releases.
type fakeGate struct {
	mu       sync.Mutex
	admit    map[string]bool
	later    map[string]bool
	asked    map[string]int
	released map[string]int
}

func (g *fakeGate) Admit(key string) (func(), time.Duration, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.asked[key]++
	switch {
	case g.admit[key]:
		return func() {
			g.mu.Lock()
			g.released[key]++
			g.mu.Unlock()
		}, 0, true
	case g.later[key]:
		return nil, time.Second, false
	default:
		return nil, 0, false
	}
}

func (g *fakeGate) count(m map[string]int, key string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return m[key]
}

func TestGateAdmitsRetriesAndDrops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := &fakeGate{
			admit: map[string]bool{"mine": true}, later: map[string]bool{"soon": true},
			asked: map[string]int{}, released: map[string]int{},
		}
		r := &controllertest.Recorder[string]{}
		env := controllertest.New(t)
		c, err := controller.New("gated", controller.Reconciler[string](r), controller.Options[string]{Gate: gate})
		if err != nil {
			t.Fatal(err)
		}
		env.Start(c)
		for _, k := range []string{"mine", "soon", "theirs"} {
			c.Queue().Add(k)
		}
		env.Settle()
		if got := r.Keys(); len(got) != 1 || got[0] != "mine" {
			t.Fatalf("reconciled %v, want only the admitted key", got)
		}
		if got := gate.count(gate.released, "mine"); got != 1 {
			t.Errorf("admitted key released %d times, want 1", got)
		}
		if got := c.Queue().Len(); got != 0 {
			t.Errorf("queue holds %d keys right after, want 0 (the pending one waits, the other is dropped)", got)
		}

		// The pending key comes back after its delay; once the gate admits
		// it, it is reconciled. The dropped key never comes back.
		env.Advance(time.Second)
		if got := gate.count(gate.asked, "soon"); got != 2 {
			t.Errorf("pending key asked %d times after its delay, want 2", got)
		}
		gate.mu.Lock()
		gate.admit["soon"] = true
		gate.mu.Unlock()
		env.Advance(time.Second)
		if got := sorted(r.Keys()); len(got) != 2 || got[1] != "soon" {
			t.Errorf("reconciled %v, want mine and soon", got)
		}
		if got := gate.count(gate.asked, "theirs"); got != 1 {
			t.Errorf("dropped key asked %d times, want 1", got)
		}
	})
}
