package shrinkmap_test

import (
	"maps"
	"runtime"
	"testing"

	"github.com/ctrlkit/ctrlkit/internal/shrinkmap"
)

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// A map that grew in a burst and lost its keys gives the memory back; a
// plain Go map keeps the table of its peak size until it is dropped,
// which is why Map exists.
func TestMapGivesBackABurstsMemory(t *testing.T) {
	const burst, kept = 100_000, 10
	base := liveHeap()
	var m shrinkmap.Map[int, [4]int64]
	for i := range burst {
		m.Set(i, [4]int64{int64(i)})
	}
	atPeak := liveHeap() - base
	for i := kept; i < burst; i++ {
		m.Delete(i)
	}
	after := liveHeap() - base
	runtime.KeepAlive(&m)

	if after > atPeak/50 {
		t.Errorf("after deleting all but %d of %d keys the map holds %d bytes, at its peak %d; want at most 1/50 of it", kept, burst, after, atPeak)
	}
	if m.Len() != kept {
		t.Errorf("Len() = %d, want %d", m.Len(), kept)
	}
	for i := range kept {
		if v, ok := m.Get(i); !ok || v[0] != int64(i) {
			t.Errorf("Get(%d) = %v, %t after the copy", i, v, ok)
		}
	}
	if got := maps.Collect(m.All()); len(got) != kept {
		t.Errorf("All() yields %d entries, want %d", len(got), kept)
	}

	// For the record: the plain map this replaces.
	plain := make(map[int][4]int64)
	base = liveHeap()
	for i := range burst {
		plain[i] = [4]int64{int64(i)}
	}
	for i := kept; i < burst; i++ {
		delete(plain, i)
	}
	t.Logf("a plain map of %d keys, %d of them left: %d bytes (Map: %d of %d at its peak)", burst, kept, liveHeap()-base, after, atPeak)
	runtime.KeepAlive(plain)
}

func TestMapBasics(t *testing.T) {
	var m shrinkmap.Map[string, int]
	if _, ok := m.Get("a"); ok || m.Len() != 0 {
		t.Fatal("the zero Map is not empty")
	}
	m.Delete("a") // deleting from the zero Map is fine
	m.Set("a", 1)
	m.Set("a", 2)
	m.Set("b", 3)
	if v, ok := m.Get("a"); !ok || v != 2 || m.Len() != 2 {
		t.Errorf("Get(a) = %d, %t with Len %d; want 2, true, 2", v, ok, m.Len())
	}
	for k := range m.All() {
		if k == "a" {
			break // stopping early is allowed
		}
	}
	m.Clear()
	if m.Len() != 0 {
		t.Errorf("Len() = %d after Clear", m.Len())
	}
	// Small maps are never copied, and a copied map keeps working.
	for i := range 1000 {
		m.Set(string(rune('a'+i%26))+string(rune(i)), i)
	}
	for k := range maps.Collect(m.All()) {
		m.Delete(k)
	}
	m.Set("z", 26)
	if v, _ := m.Get("z"); v != 26 || m.Len() != 1 {
		t.Errorf("after emptying and refilling: Get(z) = %d, Len %d", v, m.Len())
	}
}
