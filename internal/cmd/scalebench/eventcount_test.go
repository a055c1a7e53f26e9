package main

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/record"
)

func TestCountingRecorderCountsAndPassesOnEveryEvent(t *testing.T) {
	fake := record.NewFakeRecorder(10)
	reg := prometheus.NewRegistry()
	r := newCountingRecorder(fake, reg)
	pod := &corev1.Pod{}

	r.Event(pod, corev1.EventTypeNormal, "A", "one")
	r.Eventf(pod, corev1.EventTypeNormal, "B", "%s", "two")
	r.AnnotatedEventf(pod, map[string]string{"k": "v"}, corev1.EventTypeWarning, "C", "%s", "three")

	families, err := reg.Gather()
	if err != nil || len(families) != 1 || families[0].GetName() != eventsRecordedName {
		t.Fatalf("registry has %v (%v), want one %s series", families, err, eventsRecordedName)
	}
	if got := families[0].GetMetric()[0].GetCounter().GetValue(); got != 3 {
		t.Errorf("counted %v events, want 3", got)
	}
	want := []string{"Normal A one", "Normal B two", "Warning C three map[k:v]"}
	for _, w := range want {
		if got := <-fake.Events; got != w {
			t.Errorf("passed on %q, want %q", got, w)
		}
	}
}
