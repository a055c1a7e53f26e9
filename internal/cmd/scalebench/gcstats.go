package main

import (
	"fmt"
	"runtime/metrics"
)

// gcSample is this process's cumulative garbage collection work at one
// moment. The difference of two tells how much a run spent on GC, to judge
// -gogc: our controller shares the process (and its GC) with the
// benchmark's workers and tracker.
type gcSample struct {
	cycles                     uint64
	gcCPU, assistCPU, pauseCPU float64 // seconds; pause CPU is pause time × GOMAXPROCS
}

// gcMetricNames are read in this order by readGC.
var gcMetricNames = []string{
	"/gc/cycles/total:gc-cycles",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/gc/pause:cpu-seconds",
}

// readGC samples the runtime's metrics. The CPU figures are the runtime's
// estimates, refreshed at each GC cycle, so they suit a run of many cycles.
func readGC() gcSample {
	samples := make([]metrics.Sample, len(gcMetricNames))
	for i, name := range gcMetricNames {
		samples[i].Name = name
	}
	metrics.Read(samples)
	seconds := func(i int) float64 {
		if samples[i].Value.Kind() != metrics.KindFloat64 {
			return 0 // unknown to this runtime
		}
		return samples[i].Value.Float64()
	}
	var s gcSample
	if samples[0].Value.Kind() == metrics.KindUint64 {
		s.cycles = samples[0].Value.Uint64()
	}
	s.gcCPU, s.assistCPU, s.pauseCPU = seconds(1), seconds(2), seconds(3)
	return s
}

// since is the GC work from earlier to s.
func (s gcSample) since(earlier gcSample) gcSample {
	return gcSample{
		cycles:    s.cycles - earlier.cycles,
		gcCPU:     s.gcCPU - earlier.gcCPU,
		assistCPU: s.assistCPU - earlier.assistCPU,
		pauseCPU:  s.pauseCPU - earlier.pauseCPU,
	}
}

func (s gcSample) String() string {
	return fmt.Sprintf("%d GC cycles, GC CPU %.1fs (assists %.1fs, pauses %.2fs)",
		s.cycles, s.gcCPU, s.assistCPU, s.pauseCPU)
}
