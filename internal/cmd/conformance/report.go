package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// specResult is one spec's outcome on one side.
type specResult struct {
	State    string // passed, failed, skipped, ...
	Duration time.Duration
}

// readReport reads a ginkgo JSON report (--ginkgo.json-report) and returns
// the outcome of each It whose full text focus matches, by full text.
// Only the fields used here are decoded.
func readReport(path string, focus *regexp.Regexp) (map[string]specResult, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var reports []struct {
		SpecReports []struct {
			ContainerHierarchyTexts []string
			LeafNodeType            string
			LeafNodeText            string
			State                   string
			RunTime                 time.Duration
		}
	}
	if err := json.Unmarshal(data, &reports); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	out := map[string]specResult{}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != "It" {
				continue
			}
			name := strings.Join(append(slices.Clone(s.ContainerHierarchyTexts), s.LeafNodeText), " ")
			if !focus.MatchString(name) {
				continue // filtered out by the focus, not run
			}
			out[name] = specResult{State: s.State, Duration: s.RunTime}
		}
	}
	return out, nil
}

// compare writes the table of ours against upstream's and returns the specs
// upstream passes and ours does not.
func compare(w io.Writer, upstream, ours map[string]specResult) []string {
	names := map[string]bool{}
	for n := range upstream {
		names[n] = true
	}
	for n := range ours {
		names[n] = true
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "spec\tupstream\t\tctrlkit\t")
	var regressions []string
	for _, n := range slices.Sorted(maps.Keys(names)) {
		u, o := upstream[n], ours[n]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n, orMissing(u.State), u.Duration.Round(100*time.Millisecond),
			orMissing(o.State), o.Duration.Round(100*time.Millisecond))
		if u.State == "passed" && o.State != "passed" {
			regressions = append(regressions, n)
		}
	}
	tw.Flush()
	return regressions
}

func orMissing(state string) string {
	if state == "" {
		return "missing"
	}
	return state
}
