package ring_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// cachedObjects reads ctrlkit_shard_cached_objects by resource from reg.
func cachedObjects(t *testing.T, reg prometheus.Gatherer) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "ctrlkit_shard_cached_objects" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["ring"] != "test" {
				t.Errorf("ctrlkit_shard_cached_objects has ring=%q, want test", labels["ring"])
			}
			got[labels["resource"]] = m.GetGauge().GetValue()
		}
	}
	return got
}
