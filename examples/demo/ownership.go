package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	appsv1 "k8s.io/api/apps/v1"
)

// shardRow is one namespace of the sharded demo as the ownership table
// shows it.
type shardRow struct {
	Namespace string
	// Owners are the replicas serving the namespace's hash now: one, or
	// none while it is handed over (two would be a bug in the ring).
	Owners []string
	// ReconciledBy are the replicas that have reconciled a key of the
	// namespace since the demo began.
	ReconciledBy []string
	Image        string
	Progress     string
}

// serves tells, by replica ID, whether the replica serves a namespace now
// (its ring's Serves).
type serves map[string]func(namespace string) bool

// ownersOf are the replicas, of those in s, that serve namespace ns,
// sorted.
func ownersOf(ns string, s serves) []string {
	var owners []string
	for id, serves := range s {
		if serves(ns) {
			owners = append(owners, id)
		}
	}
	slices.Sort(owners)
	return owners
}

// progressOf is a Deployment's rollout in a few words, after the steps of
// statusOf (kubectl rollout status), and whether it is complete.
func progressOf(d *appsv1.Deployment) (progress string, done bool) {
	if d == nil {
		return "not created", false
	}
	want := int32(1)
	if d.Spec.Replicas != nil {
		want = *d.Spec.Replicas
	}
	s := d.Status
	counts := fmt.Sprintf("%d/%d updated, %d available", s.UpdatedReplicas, want, s.AvailableReplicas)
	if old := s.Replicas - s.UpdatedReplicas; old > 0 {
		counts += fmt.Sprintf(", %d old", old)
	}
	_, done, err := statusOf(d)
	switch {
	case err != nil:
		return "progress deadline exceeded", false
	case d.Generation > d.Status.ObservedGeneration:
		return "spec not observed yet", false
	case done:
		return "complete", true
	default:
		return counts, false
	}
}

// imageOf is the image of the Deployment's first container.
func imageOf(d *appsv1.Deployment) string {
	if d == nil || len(d.Spec.Template.Spec.Containers) == 0 {
		return ""
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// renderOwnership writes rows as a table, indented by two spaces.
func renderOwnership(out io.Writer, rows []shardRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "  NAMESPACE\tOWNER\tRECONCILED BY\tIMAGE\tROLLOUT")
	for _, r := range rows {
		owner := strings.Join(r.Owners, "+")
		if owner == "" {
			owner = "(handover)"
		}
		by := strings.Join(r.ReconciledBy, ",")
		if by == "" {
			by = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Namespace, owner, by, r.Image, r.Progress)
	}
	return tw.Flush()
}

// replicaRow is one replica in the sharded demo's final summary.
type replicaRow struct {
	ID         string
	Namespaces []string // of those the demo made, the ones it serves
}

// replicaRows summarises, for each replica, which of namespaces it serves
// now.
func replicaRows(namespaces []string, s serves) []replicaRow {
	rows := make([]replicaRow, 0, len(s))
	for _, id := range slices.Sorted(maps.Keys(s)) {
		row := replicaRow{ID: id}
		for _, ns := range namespaces {
			if s[id](ns) {
				row.Namespaces = append(row.Namespaces, ns)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// renderReplicas writes rows as a table, indented by two spaces.
func renderReplicas(out io.Writer, rows []replicaRow) error {
	tw := tabwriter.NewWriter(out, 0, 0, 3, ' ', 0)
	fmt.Fprintln(tw, "  REPLICA\tSHARE\tNAMESPACES")
	for _, r := range rows {
		names := strings.Join(r.Namespaces, ", ")
		if names == "" {
			names = "-"
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s\n", r.ID, len(r.Namespaces), names)
	}
	return tw.Flush()
}
