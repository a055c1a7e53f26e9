package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// thisProcess names the benchmark's own process in a cpuSample: the
// tracker and the writers, and in an ours run our controller too.
const thisProcess = "this process"

// cpuSample is the CPU time used so far by this process and by each of its
// child processes (the control plane's components, the ring's replicas),
// by program name, and by the whole machine. The difference of two tells
// where a phase's CPU went: on two cores every component of the benchmark
// competes for the same CPU, so a controller's share of it bounds what any
// controller could save.
type cpuSample struct {
	byProgram map[string]time.Duration // the children of one program summed
	// machineBusy and machineTotal are the time all cores spent busy and
	// in all; machineTotal is the wall time times the number of cores.
	machineBusy, machineTotal time.Duration
}

// since is the CPU time used from earlier to s.
func (s cpuSample) since(earlier cpuSample) cpuSample {
	d := cpuSample{
		byProgram:    make(map[string]time.Duration, len(s.byProgram)),
		machineBusy:  s.machineBusy - earlier.machineBusy,
		machineTotal: s.machineTotal - earlier.machineTotal,
	}
	for name, t := range s.byProgram {
		// A child started meanwhile had nothing before.
		d.byProgram[name] = t - earlier.byProgram[name]
	}
	return d
}

// String lists the programs by CPU time, most first, then the machine's
// busy share.
func (s cpuSample) String() string {
	names := make([]string, 0, len(s.byProgram))
	for name := range s.byProgram {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(s.byProgram[b], s.byProgram[a]), cmp.Compare(a, b))
	})
	parts := make([]string, 0, len(names)+1)
	for _, name := range names {
		parts = append(parts, fmt.Sprintf("%s %.1fs", name, s.byProgram[name].Seconds()))
	}
	if s.machineTotal > 0 {
		parts = append(parts, fmt.Sprintf("machine busy %.0f%%", 100*s.machineBusy.Seconds()/s.machineTotal.Seconds()))
	}
	return strings.Join(parts, ", ")
}

// cpuReport logs the CPU time of each phase of a run, from one sample to
// the next. The samples are diagnostics: the first that fails is logged,
// the report stops, and the run goes on.
type cpuReport struct {
	log    io.Writer
	name   string
	last   cpuSample
	failed bool
}

// newCPUReport takes the first sample; call it as the first phase begins.
func newCPUReport(log io.Writer, name string) *cpuReport {
	r := &cpuReport{log: log, name: name}
	r.last, r.failed = r.sample()
	return r
}

// phaseDone logs the CPU time the phase took since the previous sample.
func (r *cpuReport) phaseDone(phase string) {
	if r.failed {
		return
	}
	s, failed := r.sample()
	if !failed {
		fmt.Fprintf(r.log, "scalebench %s %s: CPU time: %s\n", r.name, phase, s.since(r.last))
	}
	r.last, r.failed = s, failed
}

// sample reads the CPU times, logging why it could not.
func (r *cpuReport) sample() (s cpuSample, failed bool) {
	s, err := sampleCPU()
	if err != nil {
		fmt.Fprintf(r.log, "scalebench %s: %v\n", r.name, err)
		return s, true
	}
	return s, false
}
