package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
)

// allowAll is a validator and defaulter that accepts everything: a bad
// request must be caught before it.
var (
	allowAll  = admission.ValidatorFuncs[Widget]{}
	noDefault = admission.DefaulterFunc[Widget](func(context.Context, *Widget) error { return nil })
)

// review is a review body with the given request JSON.
func review(request string) string {
	return `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":` + request + `}`
}

// TestMalformedRequests sends requests that cannot be admitted through the
// real server. Each must be answered with an HTTP 4xx, or, once a review
// was read, with a denial in a review that names the request's UID, and
// never with a 5xx (a panic is a 500).
func TestMalformedRequests(t *testing.T) {
	const (
		httpError = iota // an HTTP 4xx, no review
		denial           // HTTP 200, a review that denies with a 4xx
	)
	url, c := sharedServer(t)
	huge := review(`{"uid":"u","operation":"CREATE","object":{"spec":{"size":"` + strings.Repeat("x", 8<<20) + `"}}}`)
	for _, tc := range []struct {
		name        string
		path        string // "/validate" unless set
		method      string // POST unless set
		contentType string // application/json unless set; "-" for none
		body        string
		want        int
		wantCode    int    // the HTTP or the review's code
		wantMessage string // a part of the message
	}{
		{name: "GET", method: http.MethodGet, want: httpError, wantCode: 405, wantMessage: "expected POST"},
		{name: "PUT", method: http.MethodPut, body: review(`{}`), want: httpError, wantCode: 405, wantMessage: "expected POST"},
		{name: "no content type", contentType: "-", body: review(`{}`), want: httpError, wantCode: 415, wantMessage: "expected application/json"},
		{name: "text/plain", contentType: "text/plain", body: review(`{}`), want: httpError, wantCode: 415, wantMessage: "expected application/json"},
		{name: "yaml", contentType: "application/yaml", body: review(`{}`), want: httpError, wantCode: 415},
		{name: "cbor", contentType: "application/cbor", body: review(`{}`), want: httpError, wantCode: 415},
		{name: "bad content type", contentType: "application/json; ===", body: review(`{}`), want: httpError, wantCode: 415},
		{name: "empty body", want: httpError, wantCode: 400, wantMessage: "empty body"},
		{name: "not JSON", body: "hello", want: httpError, wantCode: 400, wantMessage: "not an AdmissionReview"},
		{name: "truncated JSON", body: `{"apiVersion":`, want: httpError, wantCode: 400, wantMessage: "not an AdmissionReview"},
		{name: "trailing garbage", body: review(`{"uid":"u"}`) + "xyz", want: httpError, wantCode: 400},
		{name: "a JSON array", body: `[]`, want: httpError, wantCode: 400},
		{name: "JSON null", body: `null`, want: httpError, wantCode: 400, wantMessage: "expected admission.k8s.io/v1 AdmissionReview"},
		{name: "no apiVersion or kind", body: `{"request":{"uid":"u"}}`, want: httpError, wantCode: 400, wantMessage: "expected admission.k8s.io/v1 AdmissionReview"},
		{name: "v1beta1", body: strings.Replace(review(`{"uid":"u"}`), "/v1", "/v1beta1", 1), want: httpError, wantCode: 400, wantMessage: `"admission.k8s.io/v1beta1"`},
		{name: "a ConversionReview", body: strings.Replace(review(`{"uid":"u"}`), "AdmissionReview", "ConversionReview", 1), want: httpError, wantCode: 400, wantMessage: `"ConversionReview"`},
		{name: "no request", body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`, want: httpError, wantCode: 400, wantMessage: "no request"},
		{name: "request null", body: review(`null`), want: httpError, wantCode: 400, wantMessage: "no request"},
		{name: "request is a string", body: review(`"x"`), want: httpError, wantCode: 400},
		{name: "Request in the wrong case", body: `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","Request":{"uid":"u"}}`, want: httpError, wantCode: 400, wantMessage: "no request"},
		{name: "uid is a number", body: review(`{"uid":5,"operation":"CREATE","object":{}}`), want: httpError, wantCode: 400},
		{name: "huge body", body: huge, want: httpError, wantCode: 413, wantMessage: "larger than"},
		{name: "no uid", body: review(`{"operation":"CREATE","object":{}}`), want: denial, wantCode: 400, wantMessage: "no uid"},
		{name: "create without object", body: review(`{"uid":"u","operation":"CREATE"}`), want: denial, wantCode: 400, wantMessage: "no object"},
		{name: "create with object null", body: review(`{"uid":"u","operation":"CREATE","object":null}`), want: denial, wantCode: 400, wantMessage: "no object"},
		{name: "update without oldObject", body: review(`{"uid":"u","operation":"UPDATE","object":{}}`), want: denial, wantCode: 400, wantMessage: "no oldObject"},
		{name: "update without object", body: review(`{"uid":"u","operation":"UPDATE","oldObject":{}}`), want: denial, wantCode: 400, wantMessage: "no object"},
		{name: "delete without oldObject", body: review(`{"uid":"u","operation":"DELETE"}`), want: denial, wantCode: 400, wantMessage: "no oldObject"},
		{name: "object is a number", body: review(`{"uid":"u","operation":"CREATE","object":5}`), want: denial, wantCode: 400, wantMessage: "decoding the request's object"},
		{name: "a field of the wrong type", body: review(`{"uid":"u","operation":"CREATE","object":{"spec":{"replicas":"three"}}}`), want: denial, wantCode: 400, wantMessage: "decoding the request's object"},
		{name: "CONNECT", body: review(`{"uid":"u","operation":"CONNECT","object":{}}`), want: denial, wantCode: 400, wantMessage: `"CONNECT"`},
		{name: "no operation", body: review(`{"uid":"u","object":{}}`), want: denial, wantCode: 400, wantMessage: "is not validated"},
		{name: "defaulter: create without object", path: "/default", body: review(`{"uid":"u","operation":"CREATE"}`), want: denial, wantCode: 400, wantMessage: "no object"},
		{name: "defaulter: object is an array", path: "/default", body: review(`{"uid":"u","operation":"UPDATE","object":[1]}`), want: denial, wantCode: 400, wantMessage: "decoding"},
		{name: "defaulter: not JSON", path: "/default", body: "{{", want: httpError, wantCode: 400},
		{name: "defaulter: huge body", path: "/default", body: huge, want: httpError, wantCode: 413},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := tc.path
			if path == "" {
				path = "/validate"
			}
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			req, err := http.NewRequest(method, url+path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			switch tc.contentType {
			case "":
				req.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				req.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			switch tc.want {
			case httpError:
				if resp.StatusCode != tc.wantCode || !strings.Contains(string(body), tc.wantMessage) {
					t.Errorf("HTTP %d %q, want %d with %q", resp.StatusCode, body, tc.wantCode, tc.wantMessage)
				}
			case denial:
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("HTTP %d %q, want a review", resp.StatusCode, body)
				}
				var uid types.UID
				var sent admissionv1.AdmissionReview
				if json.Unmarshal([]byte(tc.body), &sent) == nil && sent.Request != nil {
					uid = sent.Request.UID
				}
				r := decodeResponse(t, body, uid)
				if r.Allowed || r.Result == nil || int(r.Result.Code) != tc.wantCode || !strings.Contains(r.Result.Message, tc.wantMessage) {
					t.Errorf("response %+v, want a %d denial with %q", r, tc.wantCode, tc.wantMessage)
				}
			}
		})
	}
}

// sharedServer serves a validator and a defaulter that accept everything.
func sharedServer(t *testing.T) (string, *http.Client) {
	t.Helper()
	return webhooktest.Serve(t, map[string]http.Handler{
		"/validate": admission.WithValidator[Widget](allowAll),
		"/default":  admission.WithDefaulter[Widget](noDefault),
	})
}

// TestBodyLimitIsNotCheckedByContentLengthAlone sends a body larger than
// the bound with no Content-Length (chunked): it is cut at the bound.
func TestBodyLimitIsNotCheckedByContentLengthAlone(t *testing.T) {
	url, c := sharedServer(t)
	body := io.MultiReader(strings.NewReader(review(`{"uid":"u","operation":"CREATE","object":{"x":"`)),
		bytes.NewReader(bytes.Repeat([]byte("y"), 8<<20)), strings.NewReader(`"}}`))
	req, err := http.NewRequest(http.MethodPost, url+"/validate", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("HTTP %d, want 413", resp.StatusCode)
	}
}
