package conversion_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// body is a review body with the given request JSON.
func body(request string) string {
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":` + request + `}`
}

// req is a request JSON converting objects to desired.
func req(desired string, objects ...string) string {
	return `{"uid":"u","desiredAPIVersion":"` + desired + `","objects":[` + strings.Join(objects, ",") + `]}`
}

const (
	alpha = `{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"w","namespace":"ns"},"spec":{"size":1,"image":"x"}}`
	hub   = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"h","namespace":"ns"},"spec":{"replicas":1}}`
)

// TestMalformedReviews sends reviews that cannot be converted through the
// real server. Each must be answered with an HTTP 4xx, or, once a review
// was read, with a failed result in a review that names the request's UID
// and has no objects, and never with a 5xx (a panic is a 500).
func TestMalformedReviews(t *testing.T) {
	const (
		httpError = iota // an HTTP 4xx, no review
		failure          // HTTP 200, a review with a failed result
	)
	url, c := serve(t, handler(t, widgets(t)))
	huge := body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1","kind":"Widget","spec":{"image":"`+strings.Repeat("x", 2<<20)+`"}}`))
	for _, tc := range []struct {
		name        string
		method      string // POST unless set
		contentType string // application/json unless set; "-" for none
		body        string
		want        int
		wantCode    int    // the HTTP or the result's code
		wantMessage string // a part of the message
	}{
		{name: "GET", method: http.MethodGet, want: httpError, wantCode: 405, wantMessage: "expected POST"},
		{name: "no content type", contentType: "-", body: body(req("example.com/v1", alpha)), want: httpError, wantCode: 415, wantMessage: "expected application/json"},
		{name: "yaml", contentType: "application/yaml", body: body(req("example.com/v1", alpha)), want: httpError, wantCode: 415},
		{name: "empty body", want: httpError, wantCode: 400, wantMessage: "empty body"},
		{name: "not JSON", body: "hello", want: httpError, wantCode: 400, wantMessage: "not a ConversionReview"},
		{name: "truncated JSON", body: body(req("example.com/v1", alpha))[:60], want: httpError, wantCode: 400, wantMessage: "not a ConversionReview"},
		{name: "JSON null", body: "null", want: httpError, wantCode: 400, wantMessage: "expected apiextensions.k8s.io/v1 ConversionReview"},
		{name: "an AdmissionReview", body: strings.Replace(body(`{"uid":"u"}`), "apiextensions.k8s.io/v1\",\"kind\":\"ConversionReview", "admission.k8s.io/v1\",\"kind\":\"AdmissionReview", 1), want: httpError, wantCode: 400, wantMessage: `"AdmissionReview"`},
		{name: "v1beta1 review", body: strings.Replace(body(req("example.com/v1", alpha)), "apiextensions.k8s.io/v1", "apiextensions.k8s.io/v1beta1", 1), want: httpError, wantCode: 400, wantMessage: `"apiextensions.k8s.io/v1beta1"`},
		{name: "no request", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`, want: httpError, wantCode: 400, wantMessage: "no request"},
		{name: "Request in the wrong case", body: `{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","Request":` + req("example.com/v1", alpha) + `}`, want: httpError, wantCode: 400, wantMessage: "no request"},
		{name: "objects is an object", body: body(`{"uid":"u","desiredAPIVersion":"example.com/v1","objects":{}}`), want: httpError, wantCode: 400},
		{name: "huge body", body: huge, want: httpError, wantCode: 413, wantMessage: "larger than"},
		{name: "no uid", body: body(`{"desiredAPIVersion":"example.com/v1","objects":[` + alpha + `]}`), want: failure, wantCode: 400, wantMessage: "no uid"},
		{name: "no desiredAPIVersion", body: body(`{"uid":"u","objects":[` + alpha + `]}`), want: failure, wantCode: 400, wantMessage: "no desiredAPIVersion"},
		{name: "desiredAPIVersion is no group/version", body: body(req("a/b/c", alpha)), want: failure, wantCode: 400, wantMessage: `"a/b/c" is no group/version`},
		{name: "no objects", body: body(req("example.com/v1")), want: failure, wantCode: 400, wantMessage: "no objects"},
		{name: "objects null", body: body(`{"uid":"u","desiredAPIVersion":"example.com/v1","objects":null}`), want: failure, wantCode: 400, wantMessage: "no objects"},
		{name: "object is a number", body: body(req("example.com/v1", "5")), want: failure, wantCode: 400, wantMessage: "object 0 cannot be converted: it is not a JSON object"},
		{name: "object is null", body: body(req("example.com/v1", "null")), want: failure, wantCode: 400, wantMessage: "not a JSON object"},
		{name: "object without apiVersion", body: body(req("example.com/v1", `{"kind":"Widget"}`)), want: failure, wantCode: 400, wantMessage: `object 0 has apiVersion "" and kind "Widget": it needs both`},
		{name: "object without kind", body: body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1"}`)), want: failure, wantCode: 400, wantMessage: "it needs both"},
		{name: "apiVersion is a number", body: body(req("example.com/v1", `{"apiVersion":1,"kind":"Widget"}`)), want: failure, wantCode: 400, wantMessage: "cannot be converted"},
		{name: "metadata is a string", body: body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":"x"}`)), want: failure, wantCode: 400, wantMessage: "metadata is not a JSON object"},
		{name: "name is a number", body: body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":1}}`)), want: failure, wantCode: 400, wantMessage: "its metadata"},
		{name: "unknown kind", body: body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1","kind":"Gadget","metadata":{"name":"g"}}`)), want: failure, wantCode: 400, wantMessage: "object 0 (g) is a Gadget.example.com, which this webhook does not convert (it converts Widget.example.com)"},
		{name: "unknown source version", body: body(req("example.com/v1", strings.Replace(alpha, "v1alpha1", "v2", 1))), want: failure, wantCode: 400, wantMessage: `object 0 (ns/w) is at version "v2", which Widget.example.com does not have (it has v1, v1alpha1, v1beta1)`},
		{name: "unknown desired version", body: body(req("example.com/v9", alpha)), want: failure, wantCode: 400, wantMessage: `Widget.example.com has no version "v9", the desiredAPIVersion (it has v1, v1alpha1, v1beta1)`},
		{name: "desired version in another group", body: body(req("other.com/v1", alpha)), want: failure, wantCode: 400, wantMessage: "in another"},
		{name: "a field of the wrong type", body: body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1","kind":"Widget","spec":{"size":"three"}}`)), want: failure, wantCode: 400, wantMessage: "decoding it as v1alpha1"},
		{name: "spec is an array", body: body(req("example.com/v1alpha1", `{"apiVersion":"example.com/v1","kind":"Widget","spec":[1]}`)), want: failure, wantCode: 400, wantMessage: "decoding it as v1"},
		{name: "labels are no strings", body: body(req("example.com/v1", `{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"labels":{"a":1}}}`)), want: failure, wantCode: 400, wantMessage: "decoding it as v1alpha1"},
		{name: "the second object is bad", body: body(req("example.com/v1", alpha, `{"apiVersion":"example.com/v1alpha1","kind":"Widget","metadata":{"name":"bad","namespace":"ns"},"spec":{"size":true}}`)), want: failure, wantCode: 400, wantMessage: "object 1 (ns/bad) cannot be converted"},
		{name: "objects of two groups", body: body(req("example.com/v1", alpha, `{"apiVersion":"other.com/v1","kind":"Widget"}`)), want: failure, wantCode: 400, wantMessage: "object 1 (unnamed) is a Widget.other.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			r, err := http.NewRequest(method, url, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			switch tc.contentType {
			case "":
				r.Header.Set("Content-Type", "application/json")
			case "-":
			default:
				r.Header.Set("Content-Type", tc.contentType)
			}
			resp, err := c.Do(r)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			switch tc.want {
			case httpError:
				if resp.StatusCode != tc.wantCode || !strings.Contains(string(got), tc.wantMessage) {
					t.Errorf("HTTP %d %q, want %d with %q", resp.StatusCode, got, tc.wantCode, tc.wantMessage)
				}
			case failure:
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("HTTP %d %q, want a review", resp.StatusCode, got)
				}
				var uid types.UID
				var sent review
				if json.Unmarshal([]byte(tc.body), &sent) == nil && sent.Request != nil {
					uid = sent.Request.UID
				}
				r := decodeResponse(t, got, uid)
				if r.Result.Status != "Failure" || int(r.Result.Code) != tc.wantCode || !strings.Contains(r.Result.Message, tc.wantMessage) || r.ConvertedObjects != nil {
					t.Errorf("response %+v, want a %d failure with %q and no objects", r, tc.wantCode, tc.wantMessage)
				}
			}
		})
	}
}

// TestBodyLimitIsNotCheckedByContentLengthAlone sends a body larger than
// the bound with no Content-Length (chunked): it is cut at the bound.
func TestBodyLimitIsNotCheckedByContentLengthAlone(t *testing.T) {
	url, c := serve(t, handler(t, widgets(t)))
	b := io.MultiReader(strings.NewReader(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u","objects":[{"x":"`),
		bytes.NewReader(bytes.Repeat([]byte("y"), 2<<20)), strings.NewReader(`"}]}}`))
	r, err := http.NewRequest(http.MethodPost, url, b)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(r)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("HTTP %d, want 413", resp.StatusCode)
	}
}
