package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// writeKey is one kind of API write: a verb and the resource it targets,
// with its subresource if any ("deployments/status").
type writeKey struct {
	Verb     string
	Resource string
}

func (k writeKey) String() string { return k.Verb + " " + k.Resource }

// writes counts API writes by kind.
type writes map[writeKey]int

// total is the number of writes of every kind.
func (w writes) total() int {
	n := 0
	for _, c := range w {
		n += c
	}
	return n
}

// minus returns w - other, keeping only kinds with a non-zero result.
func (w writes) minus(other writes) writes {
	out := writes{}
	maps.Copy(out, w)
	for k, c := range other {
		out[k] -= c
	}
	maps.DeleteFunc(out, func(_ writeKey, c int) bool { return c == 0 })
	return out
}

// join lists the counts sorted by resource, then verb, separated by sep:
// "POST replicasets: 1000, PUT replicasets: 2000".
func (w writes) join(sep string) string {
	keys := slices.SortedFunc(maps.Keys(w), func(a, b writeKey) int {
		return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Verb, b.Verb))
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, w[k])
	}
	return strings.Join(parts, sep)
}

// byDeploymentController reports whether a request is a write that
// only a Deployment controller makes here (besides the benchmark's own,
// subtracted apart): any on Deployments, and on ReplicaSets themselves
// but not their status, which the ReplicaSet controller writes. APPLY is
// how kube-apiserver's metrics name server-side apply.
func byDeploymentController(verb, resource, subresource string) bool {
	switch verb {
	case "POST", "PUT", "PATCH", "DELETE", "APPLY":
		return resource == "deployments" || resource == "replicasets" && subresource == ""
	}
	return false
}

// serverWrites are the Deployment controller's writes (and the
// benchmark's) that kube-apiserver has served since it started.
type serverWrites struct {
	all       writes
	conflicts writes // answered 409 Conflict
}

func (w serverWrites) minus(before serverWrites) serverWrites {
	return serverWrites{all: w.all.minus(before.all), conflicts: w.conflicts.minus(before.conflicts)}
}

// scrapeWrites reads kube-apiserver's write counts from its /metrics.
func scrapeWrites(ctx context.Context, client kubernetes.Interface) (serverWrites, error) {
	raw, err := client.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return serverWrites{}, fmt.Errorf("read kube-apiserver /metrics: %w", err)
	}
	return parseWrites(raw)
}

// parseWrites sums apiserver_request_total's series of writes
// byDeploymentController by verb and resource, over API versions and
// response codes (409 apart too).
func parseWrites(text []byte) (serverWrites, error) {
	const metric = "apiserver_request_total"
	families, err := parseMetrics(text)
	if err != nil {
		return serverWrites{}, fmt.Errorf("parse kube-apiserver metrics: %w", err)
	}
	family, ok := families[metric]
	if !ok {
		return serverWrites{}, fmt.Errorf("kube-apiserver metrics have no %s", metric)
	}
	out := serverWrites{all: writes{}, conflicts: writes{}}
	for _, m := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		if !byDeploymentController(labels["verb"], labels["resource"], labels["subresource"]) {
			continue
		}
		key := writeKey{Verb: labels["verb"], Resource: labels["resource"]}
		if sub := labels["subresource"]; sub != "" {
			key.Resource += "/" + sub
		}
		n := int(m.GetCounter().GetValue())
		out.all[key] += n
		if labels["code"] == strconv.Itoa(http.StatusConflict) {
			out.conflicts[key] += n
		}
	}
	return out, nil
}
