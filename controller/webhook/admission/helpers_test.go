package admission_test

import (
	"encoding/json"
	"net/http"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
)

// Widget is a custom type, decoded with no scheme.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec `json:"spec"`
}

type WidgetSpec struct {
	Size     string   `json:"size,omitempty"`
	Replicas *int32   `json:"replicas,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

var widgetKind = metav1.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

// request is a review's request for a Widget named w1.
func request(op admissionv1.Operation, object, oldObject string) admissionv1.AdmissionRequest {
	req := admissionv1.AdmissionRequest{
		UID:       types.UID("uid-" + string(op)),
		Kind:      widgetKind,
		Resource:  metav1.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"},
		Name:      "w1",
		Namespace: "default",
		Operation: op,
	}
	if object != "" {
		req.Object = runtime.RawExtension{Raw: []byte(object)}
	}
	if oldObject != "" {
		req.OldObject = runtime.RawExtension{Raw: []byte(oldObject)}
	}
	return req
}

func reviewBody(t testing.TB, req admissionv1.AdmissionRequest) []byte {
	t.Helper()
	body, err := json.Marshal(admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
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

// admit sends req in a review and returns the review's response.
func admit(t testing.TB, c *http.Client, url string, req admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	t.Helper()
	code, body := post(t, c, url, "application/json", reviewBody(t, req))
	if code != http.StatusOK {
		t.Fatalf("HTTP %d: %s", code, body)
	}
	return decodeResponse(t, body, req.UID)
}

func decodeResponse(t testing.TB, body []byte, uid types.UID) *admissionv1.AdmissionResponse {
	t.Helper()
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(body, &review); err != nil {
		t.Fatalf("response is no review: %v: %s", err, body)
	}
	if review.APIVersion != "admission.k8s.io/v1" || review.Kind != "AdmissionReview" || review.Response == nil {
		t.Fatalf("response is no v1 review with a response: %s", body)
	}
	if review.Response.UID != uid {
		t.Fatalf("response uid %q, want %q", review.Response.UID, uid)
	}
	return review.Response
}
