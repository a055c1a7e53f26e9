package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// writeKey is one kind of API write: a verb and the resource it targets,
// with its subresource if any ("deployments/status").
type writeKey struct {
	Verb     string
	Resource string
}

func (k writeKey) String() string { return k.Verb + " " + k.Resource }

// compareWriteKeys orders kinds by resource, then verb.
func compareWriteKeys(a, b writeKey) int {
	return cmp.Or(cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Verb, b.Verb))
}

// writes counts API writes by kind.
type writes map[writeKey]int

// isWriteVerb reports whether an HTTP method (or apiserver metrics verb)
// changes state. APPLY is how apiserver metrics name server-side apply.
func isWriteVerb(verb string) bool {
	switch verb {
	case "POST", "PUT", "PATCH", "DELETE", "APPLY":
		return true
	}
	return false
}

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
	for k, c := range w {
		out[k] = c
	}
	for k, c := range other {
		out[k] -= c
	}
	maps.DeleteFunc(out, func(_ writeKey, c int) bool { return c == 0 })
	return out
}

// filter returns the kinds keep accepts.
func (w writes) filter(keep func(writeKey) bool) writes {
	out := writes{}
	for k, c := range w {
		if keep(k) {
			out[k] = c
		}
	}
	return out
}

// String lists the counts, sorted by resource then verb: "POST
// replicasets: 1000, PUT replicasets: 2000".
func (w writes) String() string {
	return w.join(", ")
}

// join lists the counts, sorted by resource then verb, separated by sep.
func (w writes) join(sep string) string {
	keys := slices.SortedFunc(maps.Keys(w), compareWriteKeys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s: %d", k, w[k])
	}
	return strings.Join(parts, sep)
}

// byDeploymentController keeps the writes only a Deployment controller makes
// in this benchmark (besides the benchmark's own, subtracted elsewhere):
// anything on Deployments, and ReplicaSets themselves but not their status,
// which the ReplicaSet controller writes.
func byDeploymentController(k writeKey) bool {
	resource, _, _ := strings.Cut(k.Resource, "/")
	return resource == "deployments" || k.Resource == "replicasets"
}

// apiResource returns the resource, with "/subresource" if any, that an API
// server path names, or "" for paths outside the resource API (/metrics,
// /healthz). It follows the apiserver's request parsing: /api/v1/... and
// /apis/<group>/<version>/..., an optional namespaces/<ns>/ prefix (except
// for a namespace's own status and finalize subresources), then
// resource[/name[/subresource]].
func apiResource(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return ""
	}
	if len(parts) >= 3 && parts[0] == "namespaces" && parts[2] != "status" && parts[2] != "finalize" {
		parts = parts[2:]
	}
	if len(parts) >= 3 {
		return parts[0] + "/" + parts[2]
	}
	return parts[0]
}
