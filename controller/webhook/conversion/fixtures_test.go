package conversion_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "write the fixtures' expected responses")

// TestFixtures sends each testdata/reviews/*.request.json as the API
// server would and compares the answer with its .response.json.
func TestFixtures(t *testing.T) {
	url, c := serve(t, handler(t, widgets(t)))
	requests, err := filepath.Glob("testdata/reviews/*.request.json")
	if err != nil || len(requests) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, reqFile := range requests {
		name := strings.TrimSuffix(filepath.Base(reqFile), ".request.json")
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(reqFile)
			if err != nil {
				t.Fatal(err)
			}
			code, got := post(t, c, url, "application/json", body)
			if code != 200 {
				t.Fatalf("HTTP %d: %s", code, got)
			}
			respFile := strings.TrimSuffix(reqFile, ".request.json") + ".response.json"
			if *update {
				var pretty bytes.Buffer
				if err := json.Indent(&pretty, got, "", "  "); err != nil {
					t.Fatal(err)
				}
				pretty.WriteByte('\n')
				if err := os.WriteFile(respFile, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(respFile)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(decodeJSON(t, want), decodeJSON(t, got)); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func decodeJSON(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}
