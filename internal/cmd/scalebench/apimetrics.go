package main

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// requestMetric counts requests in kube-apiserver, by verb, resource,
// subresource and response code among others.
const requestMetric = "apiserver_request_total"

// serverWrites are the writes kube-apiserver has served since it started.
type serverWrites struct {
	all    writes
	failed writes // answered with an error status (409 Conflict and others)
}

// scrapeWrites reads the API server's write counts from its /metrics
// endpoint.
func scrapeWrites(ctx context.Context, client kubernetes.Interface) (serverWrites, error) {
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return serverWrites{}, fmt.Errorf("read kube-apiserver /metrics: %w", err)
	}
	return parseWrites(raw)
}

// parseWrites sums requestMetric's write series by verb and resource, over
// API versions, and over response codes (all, and the failures apart).
func parseWrites(text []byte) (serverWrites, error) {
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return serverWrites{}, fmt.Errorf("parse kube-apiserver metrics: %w", err)
	}
	out := serverWrites{all: writes{}, failed: writes{}}
	family, ok := families[requestMetric]
	if !ok {
		return serverWrites{}, fmt.Errorf("kube-apiserver metrics have no %s", requestMetric)
	}
	for _, m := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if !isWriteVerb(labels["verb"]) || labels["resource"] == "" {
			continue
		}
		resource := labels["resource"]
		if sub := labels["subresource"]; sub != "" {
			resource += "/" + sub
		}
		v := m.GetCounter().GetValue()
		n, err := strconv.Atoi(strconv.FormatFloat(v, 'f', -1, 64))
		if err != nil {
			return serverWrites{}, fmt.Errorf("%s %v: count %v is not a whole number", requestMetric, labels, v)
		}
		key := writeKey{Verb: labels["verb"], Resource: resource}
		out.all[key] += n
		if code, err := strconv.Atoi(labels["code"]); err != nil || code >= 400 {
			out.failed[key] += n
		}
	}
	return out, nil
}

// minus returns the writes served since before was taken.
func (w serverWrites) minus(before serverWrites) serverWrites {
	return serverWrites{all: w.all.minus(before.all), failed: w.failed.minus(before.failed)}
}
