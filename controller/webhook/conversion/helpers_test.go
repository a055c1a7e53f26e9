package conversion_test

import (
	"encoding/json"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion"
	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/internal/testtypes"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
)

// The review as the API server sends and reads it
// (apiextensions.k8s.io/v1), spelled here as the package spells it, so
// that the tests need no k8s.io/apiextensions-apiserver either.
type review struct {
	metav1.TypeMeta `json:",inline"`
	Request         *request  `json:"request,omitempty"`
	Response        *response `json:"response,omitempty"`
}

type request struct {
	UID               types.UID         `json:"uid"`
	DesiredAPIVersion string            `json:"desiredAPIVersion"`
	Objects           []json.RawMessage `json:"objects"`
}

type response struct {
	UID              types.UID         `json:"uid"`
	ConvertedObjects []json.RawMessage `json:"convertedObjects"`
	Result           metav1.Status     `json:"result"`
}

// widgets is the Converter of the test Widgets.
func widgets(t testing.TB) *conversion.Converter {
	t.Helper()
	c, err := testtypes.Converter()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// serve serves h at /convert and returns its URL and a client.
func serve(t testing.TB, h http.Handler) (string, *http.Client) {
	t.Helper()
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/convert": h})
	return url + "/convert", c
}

// handler is the handler of c, with metrics on a private registry.
func handler(t testing.TB, c ...*conversion.Converter) http.Handler {
	t.Helper()
	h, err := conversion.NewWebhookHandler(conversion.Options{}, c...)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func reviewBody(t testing.TB, req request) []byte {
	t.Helper()
	body, err := json.Marshal(review{
		TypeMeta: metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "ConversionReview"},
		Request:  &req,
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// post sends body to url and returns the status and the body answered.
func post(t testing.TB, c *http.Client, url, contentType string, body []byte) (int, []byte) {
	t.Helper()
	return webhooktest.Post(t, c, url, contentType, body)
}

// convert sends req in a review and returns the review's response.
func convert(t testing.TB, c *http.Client, url string, req request) *response {
	t.Helper()
	code, body := post(t, c, url, "application/json", reviewBody(t, req))
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	return decodeResponse(t, body, req.UID)
}

func decodeResponse(t testing.TB, body []byte, uid types.UID) *response {
	t.Helper()
	var r review
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("response is no review: %v: %s", err, body)
	}
	if r.APIVersion != "apiextensions.k8s.io/v1" || r.Kind != "ConversionReview" || r.Response == nil || r.Request != nil {
		t.Fatalf("response is no v1 review with a response alone: %s", body)
	}
	if r.Response.UID != uid {
		t.Fatalf("response uid %q, want %q", r.Response.UID, uid)
	}
	return r.Response
}

// objects turns JSON strings into a request's objects.
func objects(objs ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(objs))
	for i, o := range objs {
		out[i] = json.RawMessage(o)
	}
	return out
}
