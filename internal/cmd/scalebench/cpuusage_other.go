//go:build !linux

package main

import "errors"

// sampleCPU reads CPU times from /proc, which only Linux has.
func sampleCPU() (cpuSample, error) {
	return cpuSample{}, errors.New("CPU times by process are read from /proc: Linux only")
}
