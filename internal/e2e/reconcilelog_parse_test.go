//go:build e2e

package e2e

import (
	"testing"
	"time"
)

// The recorder itself, on made-up klog output: it pairs starts and ends by
// reconcileID (through multi-line errors), ends an unfinished reconcile
// at the process's exit, and finds exactly the overlapping pair.
func TestReconcileRecorderFindsOverlaps(t *testing.T) {
	const id1, id2, id3, id4 = "00000000-0000-0000-0000-000000000001", "00000000-0000-0000-0000-000000000002",
		"00000000-0000-0000-0000-000000000003", "00000000-0000-0000-0000-000000000004"
	a := `I1202 06:00:00.000100    1 process.go:95] "Reconciling" logger="x" controller="deployment" key="ns1/d" reconcileID="` + id1 + `"
I1202 06:00:00.000300    1 reflector.go:1] "Something else" key="ns1/d"
E1202 06:00:00.000500    1 process.go:110] "Reconciler error" err=<
	two lines key="ns9/other"
 > logger="x" controller="deployment" key="ns1/d" reconcileID="` + id1 + `"
I1202 06:00:01.000000    1 process.go:95] "Reconciling" logger="x" controller="deployment" key="ns2/d" reconcileID="` + id2 + `"
`
	b := `I1202 06:00:00.000500    2 process.go:95] "Reconciling" logger="x" controller="deployment" key="ns1/d" reconcileID="` + id3 + `"
I1202 06:00:00.000900    2 process.go:120] "Reconciled" logger="x" controller="deployment" key="ns1/d" reconcileID="` + id3 + `"
I1202 06:00:01.500000    2 process.go:95] "Reconciling" logger="x" controller="deployment" key="ns2/d" reconcileID="` + id4 + `"
I1202 06:00:01.600000    2 process.go:116] "Reconciled, requeueing" logger="x" controller="deployment" key="ns2/d" reconcileID="` + id4 + `" after="1s"
`
	killed := time.Date(time.Now().Year(), 12, 2, 6, 0, 2, 0, time.Local)
	ra, err := parseReconciles("a", []byte(a), killed)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := parseReconciles("b", []byte(b), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ra) != 2 || ra[0].key != "ns1/d" || ra[0].open || ra[0].end.Nanosecond() != 500_000 || !ra[1].open || !ra[1].end.Equal(killed) {
		t.Fatalf("a's reconciles %v: want ns1/d ended by its error line, ns2/d open until the kill", ra)
	}
	// ns1/d: b starts exactly when a's error ends it (no overlap); ns2/d:
	// b's reconcile falls inside a's unfinished one (overlap).
	got := overlaps(append(ra, rb...))
	if len(got) != 1 || got[0][0].id != id2 || got[0][1].id != id4 {
		t.Fatalf("overlaps %v, want only ns2/d's", got)
	}
	if _, err := parseReconciles("c", []byte(`I1202 06:00:00.000900    2 process.go:120] "Reconciled" key="ns1/d" reconcileID="`+id3+`"`+"\n"), time.Time{}); err == nil {
		t.Error("an end without a start parsed")
	}
}
