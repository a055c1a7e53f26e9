package prommetrics_test

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ctrlkit/ctrlkit/workqueue"
	"github.com/ctrlkit/ctrlkit/workqueue/prommetrics"
)

// Two queues share one registry: each call to New reuses the collectors.
func Example() {
	reg := prometheus.NewRegistry()
	for _, name := range []string{"deployments", "replicasets"} {
		metrics, err := prommetrics.New(reg)
		if err != nil {
			fmt.Println(err)
			return
		}
		q := workqueue.New(workqueue.Options[string]{Name: name, MetricsProvider: metrics})
		q.Add("default/web")
		q.ShutDown()
	}
	families, _ := reg.Gather()
	for _, f := range families {
		if f.GetName() == "workqueue_depth" {
			for _, m := range f.GetMetric() {
				fmt.Println(m.GetLabel()[0].GetValue(), m.GetGauge().GetValue())
			}
		}
	}
	// Output:
	// deployments 1
	// replicasets 1
}
