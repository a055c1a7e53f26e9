package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
)

// requestMetric counts requests in kube-apiserver, by verb, resource,
// subresource and response code among others.
const requestMetric = "apiserver_request_total"

// latencyMetric is kube-apiserver's histogram of the time it takes to
// serve a request, by verb, resource and subresource (not by code).
const latencyMetric = "apiserver_request_duration_seconds"

// serverWrites are the writes kube-apiserver has served since it started.
type serverWrites struct {
	all    writes
	failed writes // answered with an error status (409 Conflict and others)
	// timed counts the writes latencyMetric observed, and seconds is the
	// time it took to serve them, so that a kind's mean is seconds/timed.
	timed   writes
	seconds map[writeKey]float64
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
	out := serverWrites{all: writes{}, failed: writes{}, timed: writes{}, seconds: map[writeKey]float64{}}
	family, ok := families[requestMetric]
	if !ok {
		return serverWrites{}, fmt.Errorf("kube-apiserver metrics have no %s", requestMetric)
	}
	for _, m := range family.GetMetric() {
		key, ok := writeKeyOf(m)
		if !ok {
			continue
		}
		v := m.GetCounter().GetValue()
		n, err := strconv.Atoi(strconv.FormatFloat(v, 'f', -1, 64))
		if err != nil {
			return serverWrites{}, fmt.Errorf("%s %s: count %v is not a whole number", requestMetric, key, v)
		}
		out.all[key] += n
		if code, err := strconv.Atoi(labelValue(m, "code")); err != nil || code >= 400 {
			out.failed[key] += n
		}
	}
	for _, m := range families[latencyMetric].GetMetric() {
		key, ok := writeKeyOf(m)
		if !ok {
			continue
		}
		out.timed[key] += int(m.GetHistogram().GetSampleCount())
		out.seconds[key] += m.GetHistogram().GetSampleSum()
	}
	return out, nil
}

// writeKeyOf is the kind of write a series of requestMetric or
// latencyMetric counts, if it counts writes to a resource.
func writeKeyOf(m *dto.Metric) (writeKey, bool) {
	verb, resource := labelValue(m, "verb"), labelValue(m, "resource")
	if !isWriteVerb(verb) || resource == "" {
		return writeKey{}, false
	}
	if sub := labelValue(m, "subresource"); sub != "" {
		resource += "/" + sub
	}
	return writeKey{Verb: verb, Resource: resource}, true
}

// labelValue is the value of m's label name, or "".
func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// minus returns the writes served since before was taken.
func (w serverWrites) minus(before serverWrites) serverWrites {
	seconds := map[writeKey]float64{}
	for k, s := range w.seconds {
		if d := s - before.seconds[k]; d != 0 {
			seconds[k] = d
		}
	}
	return serverWrites{
		all: w.all.minus(before.all), failed: w.failed.minus(before.failed),
		timed: w.timed.minus(before.timed), seconds: seconds,
	}
}

// meanLatency lists, for each kind of write in kinds, the mean time
// kube-apiserver took to serve it: "PUT deployments/status: 12.3 ms, ...".
// Refused writes (409) are in the mean: the histogram has no code label.
func (w serverWrites) meanLatency(kinds writes) string {
	means := make([]string, 0, len(kinds))
	for _, k := range slices.SortedFunc(maps.Keys(kinds), compareWriteKeys) {
		if n := w.timed[k]; n > 0 {
			means = append(means, fmt.Sprintf("%s: %.1f ms", k, 1000*w.seconds[k]/float64(n)))
		}
	}
	return strings.Join(means, ", ")
}
