package main

import (
	"bytes"
	"fmt"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// queueSummary describes the work queue named queue from a Prometheus text
// exposition: adds, retries, keys handed out (one per sync), the mean time
// a key waited and the mean time it was worked on. For kube-controller-
// manager's Deployment controller it is the counterpart of our controller's
// summary, from the same workqueue metrics.
func queueSummary(text []byte, queue string) (string, error) {
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return "", fmt.Errorf("parse metrics: %w", err)
	}
	return summarizeQueue(families, queue)
}

// summarizeQueue is queueSummary of metric families already parsed or
// gathered, so that both controllers' queues are described alike.
func summarizeQueue(families map[string]*dto.MetricFamily, queue string) (string, error) {
	find := func(name string) *dto.Metric {
		for _, m := range families[name].GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == queue {
					return m
				}
			}
		}
		return nil
	}
	var parts []string
	for _, name := range []string{"workqueue_adds_total", "workqueue_retries_total"} {
		if m := find(name); m != nil {
			parts = append(parts, fmt.Sprintf("%s: %.0f", name, m.GetCounter().GetValue()))
		}
	}
	for _, name := range []string{"workqueue_work_duration_seconds", "workqueue_queue_duration_seconds"} {
		if h := find(name).GetHistogram(); h.GetSampleCount() > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d, mean %.1fms", name, h.GetSampleCount(), 1000*h.GetSampleSum()/float64(h.GetSampleCount())))
		}
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("no metrics for work queue %q", queue)
	}
	return strings.Join(parts, ", "), nil
}
