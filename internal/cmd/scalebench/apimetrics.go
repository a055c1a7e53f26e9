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

// scrapeWrites reads the API server's write counts since it started, from
// its /metrics endpoint.
func scrapeWrites(ctx context.Context, client kubernetes.Interface) (writes, error) {
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("read kube-apiserver /metrics: %w", err)
	}
	return parseWrites(raw)
}

// parseWrites sums requestMetric's write series by verb and resource, over
// response codes and API versions.
func parseWrites(text []byte) (writes, error) {
	parser := expfmt.NewTextParser(model.LegacyValidation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("parse kube-apiserver metrics: %w", err)
	}
	out := writes{}
	family, ok := families[requestMetric]
	if !ok {
		return nil, fmt.Errorf("kube-apiserver metrics have no %s", requestMetric)
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
			return nil, fmt.Errorf("%s %v: count %v is not a whole number", requestMetric, labels, v)
		}
		out[writeKey{Verb: labels["verb"], Resource: resource}] += n
	}
	return out, nil
}
