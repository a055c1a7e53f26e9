package manager

import (
	"fmt"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/controller/lease"
)

// leaderMetricName is 1 while this Manager leads its Lease, else 0. Its
// "id" label keeps two Managers of one process apart on a shared registry.
const leaderMetricName = "ctrlkit_leader_election_is_leader"

// registerLeaderMetric exposes leading on reg, for the Lease name held on
// lc's terms.
func registerLeaderMetric(reg prometheus.Registerer, name string, lc lease.Config, leading *atomic.Bool) error {
	gauge := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        leaderMetricName,
		Help:        "1 while this process holds the leader election Lease, else 0.",
		ConstLabels: prometheus.Labels{"lease": lc.Namespace + "/" + name, "id": lc.ID},
	}, func() float64 {
		if leading.Load() {
			return 1
		}
		return 0
	})
	if err := reg.Register(gauge); err != nil {
		return fmt.Errorf("manager: registering %s: %w", leaderMetricName, err)
	}
	return nil
}
