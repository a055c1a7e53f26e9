package admission_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/utils/ptr"
	sigsjson "sigs.k8s.io/json"

	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
)

// fuzzDefaulter changes something on every object, so that patches are
// made for whatever the fuzzer sends.
var fuzzDefaulter = admission.DefaulterFunc[Widget](func(_ context.Context, w *Widget) error {
	if w.Spec.Replicas == nil {
		w.Spec.Replicas = ptr.To[int32](1)
	}
	w.Spec.Tags = append(w.Spec.Tags, "defaulted")
	if w.Spec.Size == "" {
		w.Spec.Size = "m"
	}
	return nil
})

// FuzzReview sends any body to both handlers. Each answer must be an HTTP
// 4xx, or a review that names the request's UID whose patch, if any,
// applies to the object sent; a panic fails the fuzz test.
func FuzzReview(f *testing.F) {
	for _, req := range []admissionv1.AdmissionRequest{
		request(admissionv1.Create, `{"metadata":{"name":"a"},"spec":{"size":"s","color":"red"}}`, ""),
		request(admissionv1.Update, `{"spec":{"tags":["a"],"replicas":2}}`, `{"spec":{}}`),
		request(admissionv1.Delete, "", `{"spec":{"size":"xl"}}`),
		request(admissionv1.Connect, `{}`, ""),
	} {
		f.Add(reviewBody(f, req))
	}
	for _, body := range []string{
		"", "null", "{}", "[]", "hello", `{"apiVersion":`,
		review(`null`), review(`{"uid":"u"}`), review(`{"uid":"u","operation":"CREATE","object":5}`),
		review(`{"uid":"u","operation":"CREATE","object":{"spec":{"replicas":"x"}}}`),
		review(`{"uid":"u","operation":"UPDATE","object":{"spec":{"tags":[1,{"a":null}]}},"oldObject":null}`),
		review(`{"uid":"u","operation":"CREATE","object":{"spec":{"size":"\ud800"},"x":1e400}}`),
	} {
		f.Add([]byte(body))
	}
	handlers := []http.Handler{
		admission.WithDefaulter[Widget](fuzzDefaulter),
		admission.WithValidator[Widget](admission.ValidatorFuncs[Widget]{}),
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, h := range handlers {
			r := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code >= 400 && w.Code < 500 {
				continue
			}
			if w.Code != http.StatusOK {
				t.Fatalf("HTTP %d: %s", w.Code, w.Body)
			}
			// Decoded as the handlers and the API server decode:
			// case-sensitively ("OBjeCt" is not "object").
			var sent admissionv1.AdmissionReview
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(body, &sent); err != nil || sent.Request == nil {
				t.Fatalf("answered %s with a review though it is no review (%v)", body, err)
			}
			resp := decodeResponse(t, w.Body.Bytes(), sent.Request.UID)
			if !resp.Allowed && (resp.Result == nil || resp.Result.Code == 0) {
				t.Fatalf("a denial without a status code: %+v", resp)
			}
			if resp.Patch != nil {
				p, err := jsonpatch.DecodePatch(resp.Patch)
				if err != nil {
					t.Fatalf("patch %s: %v", resp.Patch, err)
				}
				if _, err := p.Apply(sent.Request.Object.Raw); err != nil {
					t.Fatalf("patch %s does not apply to %s: %v", resp.Patch, sent.Request.Object.Raw, err)
				}
			}
		}
	})
}
