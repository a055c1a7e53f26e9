package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// A ginkgo JSON report as e2e.test writes it, cut to what readReport reads:
// a suite node, a spec outside the focus, and focused specs in three states.
const reportJSON = `[{"SpecReports":[
 {"LeafNodeType":"SynchronizedBeforeSuite","State":"passed","RunTime":1000},
 {"ContainerHierarchyTexts":["[sig-apps] StatefulSet"],"LeafNodeType":"It","LeafNodeText":"scales","State":"skipped","RunTime":0},
 {"ContainerHierarchyTexts":["[sig-apps] Deployment"],"LeafNodeType":"It","LeafNodeText":"rolls","State":"passed","RunTime":2500000000},
 {"ContainerHierarchyTexts":["[sig-apps] Deployment"],"LeafNodeType":"It","LeafNodeText":"orphans","State":"failed","RunTime":3000000000},
 {"ContainerHierarchyTexts":["[sig-apps] Deployment"],"LeafNodeType":"It","LeafNodeText":"needs a cloud","State":"skipped","RunTime":100000000}
]}]`

func TestReadReportKeepsFocusedSpecs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	if err := os.WriteFile(path, []byte(reportJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readReport(path, regexp.MustCompile(`\[sig-apps\] Deployment`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]specResult{
		"[sig-apps] Deployment rolls":         {"passed", 2500 * time.Millisecond},
		"[sig-apps] Deployment orphans":       {"failed", 3 * time.Second},
		"[sig-apps] Deployment needs a cloud": {"skipped", 100 * time.Millisecond},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d specs %v, want %d", len(got), got, len(want))
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
}

func TestCompareNamesOnlyOurRegressions(t *testing.T) {
	upstream := map[string]specResult{"a": {"passed", time.Second}, "b": {"failed", time.Second}, "c": {"passed", time.Second}, "d": {"skipped", 0}}
	ours := map[string]specResult{"a": {"passed", time.Second}, "b": {"passed", time.Second}, "c": {"failed", time.Second}, "d": {"skipped", 0}}
	var table strings.Builder
	got := compare(&table, upstream, ours)
	if !slices.Equal(got, []string{"c"}) {
		t.Errorf("regressions = %q, want [c]", got)
	}
	if lines := strings.Count(table.String(), "\n"); lines != 5 {
		t.Errorf("table has %d lines, want a header and 4 rows:\n%s", lines, table.String())
	}
}
