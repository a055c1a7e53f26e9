package hubspoke

import (
	"encoding/json"
	"testing"
)

// TestRestoreMetadata: the metadata sent is kept byte for byte unless the
// conversion changed labels or annotations, which are then taken from it.
func TestRestoreMetadata(t *testing.T) {
	const sent = `{"name":"w",  "uid":"u","labels":{},"x-newer":{"kept":true}}`
	for _, tc := range []struct {
		name, original, converted, want string
	}{
		{"unchanged: byte for byte", sent, `{"name":"w","uid":"u"}`, sent},
		{"other fields changed: ignored", sent, `{"name":"other","uid":"v","labels":{}}`, sent},
		{"annotation added", sent, `{"annotations":{"a":"1"}}`, `{"annotations":{"a":"1"},"labels":{},"name":"w","uid":"u","x-newer":{"kept":true}}`},
		{"labels removed", `{"name":"w","labels":{"a":"1"}}`, `{"name":"w"}`, `{"name":"w"}`},
		{"no metadata sent", ``, `{"labels":{"a":"1"}}`, `{"labels":{"a":"1"}}`},
	} {
		got, err := restoreMetadata(json.RawMessage(tc.original), json.RawMessage(tc.converted))
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: got %s, %v; want %s", tc.name, got, err, tc.want)
		}
	}
	if _, err := restoreMetadata(json.RawMessage(sent), json.RawMessage(`{"labels":{"a":1}}`)); err == nil {
		t.Error("labels that are no strings: no error")
	}
}
