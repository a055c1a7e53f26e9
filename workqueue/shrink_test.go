package workqueue

import (
	"runtime"
	"testing"
	"time"
)

// nopProvider gives the queue metrics that record nothing, so that only
// the queue's own memory is measured.
type nopProvider struct{}

func (nopProvider) NewDepthMetric(string) GaugeMetric                         { return noopMetric{} }
func (nopProvider) NewAddsMetric(string) CounterMetric                        { return noopMetric{} }
func (nopProvider) NewLatencyMetric(string) HistogramMetric                   { return noopMetric{} }
func (nopProvider) NewWorkDurationMetric(string) HistogramMetric              { return noopMetric{} }
func (nopProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric { return noopMetric{} }
func (nopProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return noopMetric{}
}
func (nopProvider) NewRetriesMetric(string) CounterMetric { return noopMetric{} }

// liveHeap is the heap's live bytes after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// A queue that took a burst of keys, ready and delayed, and worked through
// them, holds about what an empty queue holds: its per-key indexes are
// shrinkmap.Maps, which give a burst's table back once it is over (a plain
// Go map would keep it for the life of the queue).
func TestQueueGivesBackABurstsMemory(t *testing.T) {
	const burst = 50_000
	q, _ := newTestQueue(t, Options[string]{MetricsProvider: nopProvider{}})
	keys := make([]string, 2*burst)
	for i := range keys {
		keys[i] = string(rune(0x10000 + i)) // distinct, allocated once, outside the queue
	}
	base := liveHeap()
	for _, k := range keys[:burst] {
		q.Add(k)
	}
	for _, k := range keys[burst:] {
		q.AddAfter(k, time.Hour)
	}
	// Every ready key in flight at once: the metrics' in-flight index at
	// its peak too.
	for range burst {
		if _, shutdown := q.Get(); shutdown {
			t.Fatal("queue shut down")
		}
	}
	atPeak := liveHeap() - base
	for _, k := range keys[:burst] {
		q.Done(k)
	}
	for _, k := range keys[burst:] {
		q.Add(k) // the delayed keys, made ready now
	}
	for range burst {
		k, _ := q.Get()
		q.Done(k)
	}
	after := liveHeap() - base
	runtime.KeepAlive(q)
	if q.Len() != 0 {
		t.Fatalf("Len() = %d after working through every key", q.Len())
	}
	if after > atPeak/20 {
		t.Errorf("after a burst of %d ready and %d delayed keys the queue holds %d bytes more than before, %d at the peak; want at most 1/20 of it",
			burst, burst, after, atPeak)
	}
}
