package main

import (
	"testing"
	"time"
)

func TestCPUSampleSinceAndString(t *testing.T) {
	before := cpuSample{
		byProgram:   map[string]time.Duration{thisProcess: time.Second, "kube-apiserver": 2 * time.Second},
		machineBusy: 4 * time.Second, machineTotal: 10 * time.Second,
	}
	after := cpuSample{
		byProgram: map[string]time.Duration{
			thisProcess: 1500 * time.Millisecond, "kube-apiserver": 10 * time.Second,
			"etcd": 500 * time.Millisecond, // started after the first sample
		},
		machineBusy: 22 * time.Second, machineTotal: 30 * time.Second,
	}
	got := after.since(before).String()
	want := "kube-apiserver 8.0s, etcd 0.5s, this process 0.5s, machine busy 90%"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
