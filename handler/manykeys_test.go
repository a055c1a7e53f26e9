package handler_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/handler"
)

// manyKeys returns the keys "k<from>" to "k<to-1>".
func manyKeys(from, to int) []string {
	keys := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		keys = append(keys, "k"+strconv.Itoa(i))
	}
	return keys
}

// TestMapManyKeysFromOneEvent: an update whose old and new objects map to
// 600,000 keys each, half of them shared, adds the 900,000 distinct keys
// once each, in the order they were mapped. De-duplicating with a scan per
// key, as the handler once did, takes more than 5·10^11 comparisons here and
// does not finish within go test's default 10-minute timeout; with a set it
// takes a second or two, under the race detector too.
func TestMapManyKeysFromOneEvent(t *testing.T) {
	const n = 600_000
	all := manyKeys(0, n/2+n)
	newKeys, oldKeys := all[:n:n], all[n/2:]
	q := &recordingQueue[string]{}
	h := handler.Map(func(obj metav1.Object) []string {
		if obj.GetResourceVersion() == "2" {
			return newKeys
		}
		return oldKeys
	}).EventHandler(q)

	h.OnUpdate(pod("ns", "p", "1"), pod("ns", "p", "2"))

	adds := q.take()
	if len(adds) != 1 {
		t.Fatalf("%d adds, want 1", len(adds))
	}
	if got := adds[0].keys; !slices.Equal(got, all) {
		t.Errorf("added %d keys, want the %d distinct ones in mapping order", len(got), len(all))
	}
	if !slices.Equal(all, manyKeys(0, n/2+n)) {
		t.Error("the handler modified the slices the mapping returned")
	}
}

// TestMapEventRepeatsAddedOnce: keys a mapping returns several times are
// added once, where they first appear, and the mapping's slice is left as
// it was.
func TestMapEventRepeatsAddedOnce(t *testing.T) {
	keys := []string{"a", "b", "a", "c", "b", "a"}
	q := &recordingQueue[string]{}
	h := handler.MapEvent(func(handler.Event) []string { return keys }).EventHandler(q)
	h.OnAdd(pod("ns", "p", "1"), false)
	h.OnAdd(pod("ns", "p", "1"), false)
	want := []add[string]{{normal, []string{"a", "b", "c"}}, {normal, []string{"a", "b", "c"}}}
	if got := q.take(); !slices.EqualFunc(got, want, func(g, w add[string]) bool {
		return g.opts == w.opts && slices.Equal(g.keys, w.keys)
	}) {
		t.Errorf("adds %v, want %v", got, want)
	}
	if !slices.Equal(keys, []string{"a", "b", "a", "c", "b", "a"}) {
		t.Errorf("the mapping's slice became %v", keys)
	}
}

// BenchmarkMapEventKeys maps one event to n keys, every key twice. With
// linear de-duplication the time per key (ns/key) grows only by cache
// misses, 2-3x from 10 to 100,000 keys; a scan per key multiplies it by n.
func BenchmarkMapEventKeys(b *testing.B) {
	for _, n := range []int{10, 1_000, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			keys := append(manyKeys(0, n), manyKeys(0, n)...)
			h := handler.MapEvent(func(handler.Event) []string { return keys }).EventHandler(discardQueue[string]{})
			p := pod("ns", "p", "1")
			for b.Loop() {
				h.OnAdd(p, false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(2*n), "ns/key")
		})
	}
}
