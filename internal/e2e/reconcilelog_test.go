//go:build e2e

package e2e

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// The recorder of reconciles reads them back from the klog output of the
// controllers' processes (-v=5): package controller logs "Reconciling"
// when a reconcile starts, after its gate admitted the key, and one of
// the end messages below when it returns, before the gate's release. So
// each logged interval lies inside the interval in which the replica held
// the key, and two replicas' intervals of one key must never overlap.

// reconcileMessage matches the start and every end of a reconcile, in a
// klog text line: header, then the quoted message.
var reconcileMessage = regexp.MustCompile(`^[IWE](\d{4} \d{2}:\d{2}:\d{2}\.\d{6})\s+\d+ \S+\] "(Reconciling|Reconciled|Reconciled, requeueing|Reconciler error|Reconciler error, not retrying|Reconcile hit a conflict, retrying)"`)

var (
	// A key is "namespace/name" of object names; a quoted value inside
	// another value (an error message) has its quotes escaped, so this
	// matches only the reconcile's own key.
	reconcileKeyValue = regexp.MustCompile(` key="([a-z0-9.-]+/[a-z0-9.-]+)"`)
	reconcileIDValue  = regexp.MustCompile(` reconcileID="([0-9a-f-]{36})"`)
)

// reconcileInterval is one reconcile of key on a replica.
type reconcileInterval struct {
	replica, key, id string
	start, end       time.Time
	open             bool // no end line: the process died (or stopped) first
}

func (r reconcileInterval) String() string {
	end := r.end.Format("15:04:05.000000")
	if r.open {
		end = "(no end line; process exited " + end + ")"
	}
	return fmt.Sprintf("%s on %s [%s, %s] (reconcileID %s)", r.key, r.replica, r.start.Format("15:04:05.000000"), end, r.id)
}

// klogHeader starts each klog entry; the lines of a multi-line value
// (err=<...>) follow it without one.
var klogHeader = regexp.MustCompile(`^[IWEF]\d{4} \d{2}:`)

// klogEntries splits klog text output into entries, joining the lines of
// multi-line values to theirs.
func klogEntries(output []byte) []string {
	var entries []string
	for line := range strings.Lines(string(output)) {
		if klogHeader.MatchString(line) || len(entries) == 0 {
			entries = append(entries, line)
		} else {
			entries[len(entries)-1] += line
		}
	}
	return entries
}

// lastSubmatch is re's first submatch in its last match in s: the logger's
// own values (key, reconcileID) come after the message's (err), whose
// multi-line form is not escaped.
func lastSubmatch(re *regexp.Regexp, s string) string {
	all := re.FindAllStringSubmatch(s, -1)
	if len(all) == 0 {
		return ""
	}
	return all[len(all)-1][1]
}

// parseReconciles reads the reconciles in one replica's output. A
// reconcile with no end line ends when the process exited (exited): it
// was running when the process was killed. The year of klog's timestamps
// is now's (a run across New Year's Eve would fail, loudly).
func parseReconciles(replica string, output []byte, exited time.Time) ([]reconcileInterval, error) {
	byID := map[string]*reconcileInterval{}
	var order []string
	year := time.Now().Year()
	for _, entry := range klogEntries(output) {
		m := reconcileMessage.FindStringSubmatch(entry)
		if m == nil {
			continue
		}
		at, err := time.ParseInLocation("2006 0102 15:04:05.000000", fmt.Sprintf("%d %s", year, m[1]), time.Local)
		if err != nil {
			return nil, fmt.Errorf("%s: timestamp of %q: %w", replica, entry, err)
		}
		key, id := lastSubmatch(reconcileKeyValue, entry), lastSubmatch(reconcileIDValue, entry)
		if key == "" || id == "" {
			return nil, fmt.Errorf("%s: no key or reconcileID in %q", replica, entry)
		}
		r := byID[id]
		switch {
		case m[2] == "Reconciling" && r != nil:
			return nil, fmt.Errorf("%s: reconcileID %s starts twice", replica, id)
		case m[2] == "Reconciling":
			byID[id] = &reconcileInterval{replica: replica, key: key, id: id, start: at, open: true}
			order = append(order, id)
		case r == nil:
			return nil, fmt.Errorf("%s: %q ends a reconcile that did not start", replica, entry)
		case !r.open:
			return nil, fmt.Errorf("%s: reconcileID %s ends twice", replica, id)
		default:
			r.end, r.open = at, false
		}
	}
	out := make([]reconcileInterval, 0, len(order))
	for _, id := range order {
		r := byID[id]
		if r.open {
			r.end = exited
		}
		out = append(out, *r)
	}
	return out, nil
}

// overlaps returns every pair of reconciles of one key on two replicas
// whose intervals overlap.
func overlaps(all []reconcileInterval) [][2]reconcileInterval {
	byKey := map[string][]reconcileInterval{}
	for _, r := range all {
		byKey[r.key] = append(byKey[r.key], r)
	}
	var found [][2]reconcileInterval
	for _, rs := range byKey {
		slices.SortFunc(rs, func(a, b reconcileInterval) int { return a.start.Compare(b.start) })
		for i := range rs {
			for j := i + 1; j < len(rs) && rs[j].start.Before(rs[i].end); j++ {
				if rs[j].replica != rs[i].replica {
					found = append(found, [2]reconcileInterval{rs[i], rs[j]})
				}
			}
		}
	}
	slices.SortFunc(found, func(a, b [2]reconcileInterval) int { return cmp.Compare(a[0].key, b[0].key) })
	return found
}
