package manager

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes/fake"
)

// leaderGauge reads the leader metric of candidate id from reg.
func leaderGauge(t *testing.T, reg prometheus.Gatherer, id string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != leaderMetricName {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "id" && l.GetValue() == id {
					return m.GetGauge().GetValue()
				}
			}
		}
	}
	t.Fatalf("no %s{id=%q}", leaderMetricName, id)
	return 0
}

func TestLeaderMetric(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := withOptimisticConcurrency(fake.NewClientset())
		reg := prometheus.NewRegistry()
		optsA, optsB := leOptions(client, "a", true), leOptions(client, "b", true)
		optsA.Registry, optsB.Registry = reg, reg // two Managers, one registry
		a, b := mustNew(t, optsA), mustNew(t, optsB)
		if got := leaderGauge(t, reg, "a"); got != 0 {
			t.Errorf("before Run: gauge = %v, want 0", got)
		}
		ctx, cancel := context.WithCancel(t.Context())
		doneA := runInBackground(ctx, a)
		<-a.Elected()
		doneB := runInBackground(ctx, b)
		synctest.Wait()
		if ga, gb := leaderGauge(t, reg, "a"), leaderGauge(t, reg, "b"); ga != 1 || gb != 0 {
			t.Errorf("a leading: gauges a=%v b=%v, want 1 and 0", ga, gb)
		}
		cancel()
		for _, done := range []<-chan error{doneA, doneB} {
			if err := <-done; err != nil {
				t.Errorf("Run: %v", err)
			}
		}
		if got := leaderGauge(t, reg, "a"); got != 0 {
			t.Errorf("after Run: gauge = %v, want 0", got)
		}

		// The same candidate twice on one registry is refused clearly.
		if _, err := New(optsA); err == nil || !strings.Contains(err.Error(), leaderMetricName) {
			t.Errorf("New with a duplicate id on a shared registry = %v, want an error naming the metric", err)
		}
	})
}
