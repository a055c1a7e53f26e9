package sharding_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/sharding"
	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

var noop = controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
	return controller.Result{}, nil
})

// The safety option: a controller built with ControllerOptions has the
// ring's gate, runs on every replica, and times out its reconciles below
// LeaseDuration − RenewDeadline; one given the ring's gate without a
// timeout below that cannot be built.
func TestControllerOptionsBoundReconcilesByTheLease(t *testing.T) {
	ring := newRing(t, fake.NewClientset(), "a") // LeaseDuration 3s, RenewDeadline 2s
	margin := time.Second

	opts, err := sharding.ControllerOptions(ring, controller.Options[string]{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Gate == nil || opts.NeedLeaderElection == nil || *opts.NeedLeaderElection || opts.Workers != 2 {
		t.Errorf("options %+v: want the ring's gate, NeedLeaderElection false and the base's Workers", opts)
	}
	if opts.ReconcileTimeout <= 0 || opts.ReconcileTimeout >= margin {
		t.Errorf("ReconcileTimeout %s, want positive and below LeaseDuration − RenewDeadline = %s", opts.ReconcileTimeout, margin)
	}
	if got, want := opts.ReconcileTimeout, 800*time.Millisecond; got != want || ring.ReconcileTimeout() != want {
		t.Errorf("ReconcileTimeout %s, Ring.ReconcileTimeout %s; want %s (4/5 of the margin)", got, ring.ReconcileTimeout(), want)
	}
	if _, err := controller.New("sharded", noop, opts); err != nil {
		t.Errorf("controller.New with ControllerOptions: %v", err)
	}

	// The path without ControllerOptions: the gate alone, or with a
	// timeout that outlives the margin.
	gate := opts.Gate
	for _, timeout := range []time.Duration{0, margin, time.Minute} {
		_, err := controller.New("sharded", noop, controller.Options[string]{Gate: gate, NeedLeaderElection: ptr.To(false), ReconcileTimeout: timeout})
		if err == nil || !strings.Contains(err.Error(), "ReconcileTimeout must be positive and below it") {
			t.Errorf("ReconcileTimeout %s: controller.New = %v, want it refused", timeout, err)
		}
	}
}

// ControllerOptions knows the shard of namespace/name strings and
// NamespacedNames, takes shardOf for other keys, refuses a base with a
// Gate of its own, and without a ring changes nothing.
func TestControllerOptionsKeysAndRefusals(t *testing.T) {
	ring := newRing(t, fake.NewClientset(), "a")
	if _, err := sharding.ControllerOptions(ring, controller.Options[types.NamespacedName]{}, nil); err != nil {
		t.Error(err)
	}
	if _, err := sharding.ControllerOptions(ring, controller.Options[int]{}, nil); err == nil || !strings.Contains(err.Error(), "keys of type int have no default shard") {
		t.Errorf("ControllerOptions[int] = %v, want an error", err)
	}
	if _, err := sharding.ControllerOptions(ring, controller.Options[int]{}, func(int) (string, string) { return "default", "" }); err != nil {
		t.Errorf("ControllerOptions[int] with shardOf: %v", err)
	}
	sharded, _ := sharding.ControllerOptions(ring, controller.Options[string]{}, nil)
	gate := sharded.Gate
	if _, err := sharding.ControllerOptions(ring, controller.Options[string]{Gate: gate}, nil); err == nil || !strings.Contains(err.Error(), "have a Gate") {
		t.Errorf("a base with a Gate: %v, want it refused", err)
	}
	base := controller.Options[string]{Workers: 3}
	if got, err := sharding.ControllerOptions(nil, base, nil); err != nil || got.Gate != nil || got.NeedLeaderElection != nil || got.ReconcileTimeout != 0 {
		t.Errorf("without a ring: %+v, %v; want the base unchanged", got, err)
	}
}

// The public RingLabel is the label the ring writes.
func TestRingLabelIsTheRingsOwn(t *testing.T) {
	if sharding.RingLabel != ring.RingLabel {
		t.Errorf("RingLabel %q, the ring writes %q", sharding.RingLabel, ring.RingLabel)
	}
}
