package defaultpatch

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

func TestPatch(t *testing.T) {
	for _, tc := range []struct {
		name               string
		raw, before, after string
		want               string // raw with the patch applied; "" for no patch
	}{{
		name:   "no change, no patch, even if the Go type drops fields",
		raw:    `{"a":1,"unknown":{"x":true}}`,
		before: `{"a":1}`,
		after:  `{"a":1}`,
	}, {
		name:   "an added field keeps the fields the Go type does not know",
		raw:    `{"spec":{"size":"s","color":"red"},"extra":[1,2]}`,
		before: `{"spec":{"size":"s"}}`,
		after:  `{"spec":{"size":"s","replicas":1}}`,
		want:   `{"spec":{"size":"s","color":"red","replicas":1},"extra":[1,2]}`,
	}, {
		name:   "a changed field",
		raw:    `{"spec":{"size":"","color":"red"}}`,
		before: `{"spec":{"size":""}}`,
		after:  `{"spec":{"size":"m"}}`,
		want:   `{"spec":{"size":"m","color":"red"}}`,
	}, {
		name:   "a field the defaulter removed",
		raw:    `{"spec":{"size":"s","legacy":"x","color":"red"}}`,
		before: `{"spec":{"size":"s","legacy":"x"}}`,
		after:  `{"spec":{"size":"s"}}`,
		want:   `{"spec":{"size":"s","color":"red"}}`,
	}, {
		name:   "a zero value the Go type adds but the defaulter leaves is not sent",
		raw:    `{"metadata":{"name":"a"}}`,
		before: `{"metadata":{"name":"a","creationTimestamp":null},"status":{}}`,
		after:  `{"metadata":{"name":"a","creationTimestamp":null,"labels":{"x":"y"}},"status":{}}`,
		want:   `{"metadata":{"name":"a","labels":{"x":"y"}}}`,
	}, {
		name:   "array elements of unchanged length keep unknown fields",
		raw:    `{"containers":[{"name":"a","future":1},{"name":"b","future":2}]}`,
		before: `{"containers":[{"name":"a"},{"name":"b"}]}`,
		after:  `{"containers":[{"name":"a","pull":"Always"},{"name":"b"}]}`,
		want:   `{"containers":[{"name":"a","future":1,"pull":"Always"},{"name":"b","future":2}]}`,
	}, {
		name:   "an array whose length changed is replaced",
		raw:    `{"list":[{"n":1,"future":true}]}`,
		before: `{"list":[{"n":1}]}`,
		after:  `{"list":[{"n":1},{"n":2}]}`,
		want:   `{"list":[{"n":1},{"n":2}]}`,
	}, {
		name:   "large integers are not rounded",
		raw:    `{"big":9007199254740993,"n":1}`,
		before: `{"big":9007199254740993,"n":1}`,
		after:  `{"big":9007199254740993,"n":2}`,
		want:   `{"big":9007199254740993,"n":2}`,
	}, {
		name:   "a value replaced by one of another type",
		raw:    `{"v":"s","keep":1}`,
		before: `{"v":"s"}`,
		after:  `{"v":{"o":1}}`,
		want:   `{"v":{"o":1},"keep":1}`,
	}, {
		name:   "a change that leaves the raw object as it was sends no patch",
		raw:    `{"a":"x"}`,
		before: `{"a":""}`,
		after:  `{"a":"x"}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			patch, err := Patch([]byte(tc.raw), []byte(tc.before), []byte(tc.after))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if patch != nil {
					t.Fatalf("patch %s, want none", patch)
				}
				return
			}
			if patch == nil {
				t.Fatal("no patch")
			}
			p, err := jsonpatch.DecodePatch(patch)
			if err != nil {
				t.Fatalf("patch %s: %v", patch, err)
			}
			got, err := p.Apply([]byte(tc.raw))
			if err != nil {
				t.Fatalf("applying %s: %v", patch, err)
			}
			var gotV, wantV any
			if err := json.Unmarshal(got, &gotV); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(tc.want), &wantV); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(wantV, gotV); d != "" {
				t.Errorf("patch %s gives (-want +got):\n%s", patch, d)
			}
			if tc.name == "large integers are not rounded" && string(got) != tc.want {
				t.Errorf("got %s, want %s exactly", got, tc.want)
			}
		})
	}
}

func TestPatchRejectsInvalidJSON(t *testing.T) {
	if _, err := Patch([]byte(`{`), []byte(`{}`), []byte(`{"a":1}`)); err == nil {
		t.Error("no error for a raw object that is not JSON")
	}
}
