package readyourwrites

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// These tests drive a Tracker by hand: the informer never runs, its
// deliveries are calls of the tracked handler and its cache is its store.

func newTracker() (*Tracker, *clocktesting.FakeClock) {
	clk := clocktesting.NewFakeClock(time.Unix(1_000_000, 0))
	return &Tracker{
		Timeout:  time.Minute,
		Clock:    clk,
		Timers:   clk,
		Held:     prometheus.NewGauge(prometheus.GaugeOpts{Name: "held"}),
		HoldTime: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "hold_time"}),
		Timeouts: prometheus.NewCounter(prometheus.CounterOpts{Name: "timeouts"}),
	}, clk
}

func newInformer() cache.SharedIndexInformer {
	return cache.NewSharedIndexInformer(&cache.ListWatch{}, &corev1.ConfigMap{}, 0, cache.Indexers{})
}

func configMap(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv, UID: types.UID("uid-" + name)}}
}

// hold records writes in a fresh Writes and holds it, returning a channel
// closed when done runs.
func hold(t *testing.T, tr *Tracker, record func(w *Writes)) (*Writes, chan struct{}) {
	t.Helper()
	w := &Writes{}
	record(w)
	if !w.Close() {
		t.Fatal("Close reported no writes")
	}
	released := make(chan struct{})
	if !tr.Hold(w, func() { close(released) }) {
		t.Fatal("Hold did not take the key")
	}
	return w, released
}

func isReleased(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestHeldUntilEveryWriteIsDelivered(t *testing.T) {
	tr, _ := newTracker()
	inf := newInformer()
	h := tr.Track(inf, &cache.ResourceEventHandlerFuncs{})
	if err := inf.GetStore().Add(configMap("gone", "5")); err != nil {
		t.Fatal(err)
	}
	_, released := hold(t, tr, func(w *Writes) {
		tr.Record(w, inf, configMap("a", "10"), false)
		tr.Record(w, inf, configMap("gone", ""), true)
	})
	h.OnUpdate(nil, configMap("a", "9")) // older than the write
	h.OnAdd(configMap("b", "11"), false) // another object
	if isReleased(released) {
		t.Fatal("released before the informer delivered the writes")
	}
	h.OnUpdate(nil, configMap("a", "12"))
	if isReleased(released) {
		t.Fatal("released before the informer delivered the deletion")
	}
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/gone"})
	if !isReleased(released) {
		t.Fatal("not released once every write was delivered")
	}
	if got := value(t, tr.Held); got != 0 {
		t.Errorf("held = %v, want 0", got)
	}
	assertNothingAwaited(t, tr)
}

func TestWriteAlreadyInTheStoreIsNotAwaited(t *testing.T) {
	tr, _ := newTracker()
	inf := newInformer()
	tr.Track(inf, &cache.ResourceEventHandlerFuncs{})
	if err := inf.GetStore().Add(configMap("a", "10")); err != nil {
		t.Fatal(err)
	}
	_, released := hold(t, tr, func(w *Writes) { tr.Record(w, inf, configMap("a", "10"), false) })
	if !isReleased(released) {
		t.Fatal("held for a write the store already has")
	}
	assertNothingAwaited(t, tr)
}

func TestHoldTimesOut(t *testing.T) {
	tr, clk := newTracker()
	inf := newInformer()
	tr.Track(inf, &cache.ResourceEventHandlerFuncs{})
	_, released := hold(t, tr, func(w *Writes) { tr.Record(w, inf, configMap("a", "10"), false) })
	clk.Step(tr.Timeout - time.Nanosecond)
	if isReleased(released) {
		t.Fatal("released before the timeout")
	}
	clk.Step(time.Nanosecond)
	testutil.Eventually(t, time.Minute, "the release at the timeout", testutil.True(func() bool { return isReleased(released) }))
	if got := value(t, tr.Timeouts); got != 1 {
		t.Errorf("timeouts = %v, want 1", got)
	}
	assertNothingAwaited(t, tr)
}

func TestStopReleasesAndRefuses(t *testing.T) {
	tr, _ := newTracker()
	inf := newInformer()
	tr.Track(inf, &cache.ResourceEventHandlerFuncs{})
	_, released := hold(t, tr, func(w *Writes) { tr.Record(w, inf, configMap("a", "10"), false) })
	tr.Stop()
	if !isReleased(released) {
		t.Fatal("Stop did not release the held key")
	}
	w := &Writes{}
	tr.Record(w, inf, configMap("a", "11"), false)
	w.Close()
	if tr.Hold(w, func() { t.Error("done called for a refused hold") }) {
		t.Error("Hold took a key after Stop")
	}
	if got := value(t, tr.Held); got != 0 {
		t.Errorf("held = %v, want 0", got)
	}
	assertNothingAwaited(t, tr)
}

func TestRecordAfterCloseAndUntrackedInformer(t *testing.T) {
	tr, _ := newTracker()
	inf := newInformer()
	tr.Track(inf, &cache.ResourceEventHandlerFuncs{})
	if tr.Record(&Writes{}, newInformer(), configMap("a", "1"), false) {
		t.Error("Record accepted a write against an untracked informer")
	}
	w := &Writes{}
	if w.Close() {
		t.Error("Close reported writes for an empty log")
	}
	tr.Record(w, inf, configMap("a", "1"), false)
	if w.Close() {
		t.Error("a write recorded after Close was kept")
	}
}

// assertNothingAwaited checks the invariant that a released hold leaves
// nothing behind in the tracked informers.
func assertNothingAwaited(t *testing.T, tr *Tracker) {
	t.Helper()
	tr.mu.Lock()
	defer tr.mu.Unlock()
	for _, ti := range tr.informers {
		ti.mu.Lock()
		n, pending := len(ti.waiting), ti.pending.Load()
		ti.mu.Unlock()
		if n != 0 || pending != 0 {
			t.Errorf("after release: %d names awaited, pending %d; want none", n, pending)
		}
	}
	if len(tr.held) != 0 {
		t.Errorf("%d holds registered after release, want none", len(tr.held))
	}
}

// value returns a gauge's or counter's value.
func value(t *testing.T, m prometheus.Metric) float64 {
	t.Helper()
	var out dto.Metric
	if err := m.Write(&out); err != nil {
		t.Fatal(err)
	}
	if g := out.GetGauge(); g != nil {
		return g.GetValue()
	}
	return out.GetCounter().GetValue()
}
