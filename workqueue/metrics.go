package workqueue

import "time"

// queueMetrics feeds a MetricsProvider. The Queue's mutex guards its own
// fields (the start times and the unfinished-work state); the metrics it
// holds are safe for concurrent use, and the queue updates some of them
// after unlocking (observeHandOut, observeWork).
type queueMetrics[T comparable] struct {
	depth        GaugeMetric
	adds         CounterMetric
	latency      HistogramMetric
	workDuration HistogramMetric
	unfinished   SettableGaugeMetric
	longest      SettableGaugeMetric
	retries      CounterMetric
	dropped      CounterMetric

	// started holds the hand-out time of each key in flight.
	started            startTimes[T]
	nextUnfinishedTime int64
	// unfinishedSet is set while the unfinished-work gauges may hold a
	// non-zero value, so that the common Done with nothing else in flight
	// does not store zeros that are there already.
	unfinishedSet bool
}

type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Dec()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

func newQueueMetrics[T comparable](p MetricsProvider, name string) *queueMetrics[T] {
	m := &queueMetrics[T]{
		depth:        p.NewDepthMetric(name),
		adds:         p.NewAddsMetric(name),
		latency:      p.NewLatencyMetric(name),
		workDuration: p.NewWorkDurationMetric(name),
		unfinished:   p.NewUnfinishedWorkSecondsMetric(name),
		longest:      p.NewLongestRunningProcessorSecondsMetric(name),
		retries:      p.NewRetriesMetric(name),
		dropped:      noopMetric{},
	}
	if dp, ok := p.(DroppedMetricsProvider); ok {
		m.dropped = dp.NewDroppedMetric(name)
	}
	return m
}

// added counts a key that became ready (or held): depth counts both, as in
// client-go.
func (m *queueMetrics[T]) added() {
	m.adds.Inc()
	m.depth.Inc()
}

// handedOut records, with the queue locked, that key was handed out at now.
func (m *queueMetrics[T]) handedOut(key T, now int64) {
	m.started.put(key, now)
}

// observeHandOut records a hand-out of a key that was ready for wait
// nanoseconds. The queue calls it unlocked: the metrics are safe for
// concurrent use, and time spent in them under the lock is time the other
// callers wait.
func (m *queueMetrics[T]) observeHandOut(wait int64) {
	m.depth.Dec()
	m.latency.Observe(seconds(wait))
}

// observeWork records a key's time in flight, from its hand-out to Done.
// The queue calls it unlocked when it can, as observeHandOut.
func (m *queueMetrics[T]) observeWork(elapsed time.Duration) {
	m.workDuration.Observe(elapsed.Seconds())
}

// done records the end of key's work and returns how long it was in
// flight, for observeWork.
func (m *queueMetrics[T]) done(key T, now int64) (elapsed time.Duration, timed bool) {
	start, timed := m.started.take(key)
	if timed {
		elapsed = time.Duration(now - start)
	}
	if m.started.len() == 0 && m.unfinishedSet {
		// Nothing in flight: the timer stops refreshing, so zero now.
		m.unfinished.Set(0)
		m.longest.Set(0)
		m.unfinishedSet = false
	}
	return elapsed, timed
}

// refreshUnfinished sets the unfinished-work gauges if their period has
// passed and returns when they are next due.
func (m *queueMetrics[T]) refreshUnfinished(now int64) int64 {
	if now < m.nextUnfinishedTime {
		return m.nextUnfinishedTime
	}
	var total, longest int64
	m.started.each(func(start int64) {
		age := now - start
		total += age
		longest = max(longest, age)
	})
	m.unfinished.Set(seconds(total))
	m.longest.Set(seconds(longest))
	m.unfinishedSet = true
	m.nextUnfinishedTime = now + unfinishedWorkPeriod
	return m.nextUnfinishedTime
}

func seconds(ns int64) float64 { return float64(ns) / 1e9 }

// startTimesInline is how many in-flight keys startTimes keeps in its
// slice before it spills into a map: a linear search of a few keys is
// cheaper than hashing a key three times (put, take, delete) per hand-out.
const startTimesInline = 16

// startTimes maps the keys in flight to their hand-out times. A key is in
// flight at most once, and usually there are no more keys in flight than
// workers, so most queues never need the map.
type startTimes[T comparable] struct {
	inline   []startTime[T] // at most startTimesInline
	overflow map[T]int64    // the rest; nil until needed
}

type startTime[T comparable] struct {
	key T
	at  int64
}

// put records that key, not in flight, was handed out at at.
func (s *startTimes[T]) put(key T, at int64) {
	if len(s.inline) < startTimesInline {
		s.inline = append(s.inline, startTime[T]{key, at})
		return
	}
	if s.overflow == nil {
		s.overflow = make(map[T]int64)
	}
	s.overflow[key] = at
}

// take removes key and returns its hand-out time, reporting whether it was
// in flight.
func (s *startTimes[T]) take(key T) (int64, bool) {
	// Keys mostly finish in the order they were handed out: search from
	// the oldest.
	for i := range s.inline {
		if s.inline[i].key != key {
			continue
		}
		at := s.inline[i].at
		last := len(s.inline) - 1
		s.inline[i] = s.inline[last]
		s.inline[last] = startTime[T]{} // drop the reference to the key
		s.inline = s.inline[:last]
		return at, true
	}
	if at, ok := s.overflow[key]; ok {
		delete(s.overflow, key)
		return at, true
	}
	return 0, false
}

// len returns the number of keys in flight.
func (s *startTimes[T]) len() int { return len(s.inline) + len(s.overflow) }

// each calls f with the hand-out time of every key in flight.
func (s *startTimes[T]) each(f func(at int64)) {
	for _, st := range s.inline {
		f(st.at)
	}
	for _, at := range s.overflow {
		f(at)
	}
}
