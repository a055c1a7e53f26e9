package conversion_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	sigsjson "sigs.k8s.io/json"
)

// FuzzReview sends any body to the handler. Each answer must be an HTTP
// 4xx, or a review that names the request's UID and either fails with a
// code or converts every object: at the desired apiVersion, of the same
// kind, with the metadata sent but for labels and annotations. A panic
// fails the fuzz test.
func FuzzReview(f *testing.F) {
	fixtures, _ := filepath.Glob("testdata/reviews/*.request.json")
	for _, file := range fixtures {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, b := range []string{
		"", "null", "{}", "[]", "hello",
		body(`null`), body(`{"uid":"u"}`), body(req("example.com/v1", "5")),
		body(req("example.com/v1alpha1", hub, alpha)),
		body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"labels":{"a":1}}}`)),
		body(req("example.com/v1beta1", `{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"annotations":{"example.com/paused":"true"}},"spec":{"image":"\ud800:x"},"x":1e400}`)),
	} {
		f.Add([]byte(b))
	}
	h := handler(f, widgets(f))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(b))
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 400 && w.Code < 500 {
			return
		}
		if w.Code != http.StatusOK {
			t.Fatalf("HTTP %d: %s", w.Code, w.Body)
		}
		var sent review
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(b, &sent); err != nil || sent.Request == nil {
			t.Fatalf("answered %s with a review though it is no review (%v)", b, err)
		}
		resp := decodeResponse(t, w.Body.Bytes(), sent.Request.UID)
		if resp.Result.Status != "Success" {
			if resp.Result.Status != "Failure" || resp.Result.Code == 0 || resp.Result.Message == "" || resp.ConvertedObjects != nil {
				t.Fatalf("a failure without a code, a message, or with objects: %+v", resp)
			}
			return
		}
		if len(resp.ConvertedObjects) != len(sent.Request.Objects) {
			t.Fatalf("%d objects converted of %d", len(resp.ConvertedObjects), len(sent.Request.Objects))
		}
		for i, out := range resp.ConvertedObjects {
			in, got := object(t, sent.Request.Objects[i]), object(t, out)
			if got["apiVersion"] != sent.Request.DesiredAPIVersion || got["kind"] != in["kind"] {
				t.Fatalf("object %d: %v %v, want %v %v", i, got["apiVersion"], got["kind"], sent.Request.DesiredAPIVersion, in["kind"])
			}
			inMeta, _ := in["metadata"].(map[string]any)
			gotMeta, _ := got["metadata"].(map[string]any)
			for _, m := range []map[string]any{inMeta, gotMeta} {
				delete(m, "labels")
				delete(m, "annotations")
			}
			if len(inMeta) > 0 || len(gotMeta) > 0 {
				if diff := cmp.Diff(inMeta, gotMeta); diff != "" {
					t.Fatalf("object %d: metadata changed (-sent +got):\n%s", i, diff)
				}
			}
		}
	})
}

func object(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // 1e400 is no float64, and the handler need not read it
	if err := d.Decode(&m); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return m
}
