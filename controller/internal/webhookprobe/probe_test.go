package webhookprobe

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

func TestNonce(t *testing.T) {
	marked := runtime.RawExtension{Raw: []byte(`{"metadata":{"annotations":{"` + Annotation + `":"abc"}}}`)}
	for _, tc := range []struct {
		name   string
		req    admissionv1.AdmissionRequest
		want   string
		wantOK bool
	}{
		{"dry-run probe", admissionv1.AdmissionRequest{DryRun: ptr.To(true), Object: marked}, "abc", true},
		{"not dry-run", admissionv1.AdmissionRequest{Object: marked}, "", false},
		{"dryRun false", admissionv1.AdmissionRequest{DryRun: ptr.To(false), Object: marked}, "", false},
		{"unmarked", admissionv1.AdmissionRequest{DryRun: ptr.To(true), Object: runtime.RawExtension{Raw: []byte(`{"metadata":{}}`)}}, "", false},
		{"no object", admissionv1.AdmissionRequest{DryRun: ptr.To(true)}, "", false},
		{"not JSON", admissionv1.AdmissionRequest{DryRun: ptr.To(true), Object: runtime.RawExtension{Raw: []byte(`{`)}}, "", false},
	} {
		if got, ok := Nonce(&tc.req); got != tc.want || ok != tc.wantOK {
			t.Errorf("%s: Nonce = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestReachedAndUnreached(t *testing.T) {
	warnings := []string{Warning("n1", "/a"), "another warning", Warning("n0", "/b"), Warning("n1", "/a"), Warning("n1", "/c")}
	reached := Reached("n1", warnings)
	if !cmp.Equal(reached, []string{"/a", "/c"}) {
		t.Fatalf("Reached = %v, want [/a /c]", reached)
	}
	url := "https://127.0.0.1:1/b?x=1"
	configs := []Configuration{
		Validating(&admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "v"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{
				{ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url}},
				{ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{Path: ptr.To("/c")}}},
			}}),
		Mutating(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "m"},
			Webhooks: []admissionregistrationv1.MutatingWebhook{
				{ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{}}},
			}}),
		Mutating(&admissionregistrationv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "empty"}}),
	}
	if got, want := Unreached(configs, reached), "MutatingWebhookConfiguration m (/)"; got != want {
		t.Errorf("Unreached = %q, want %q", got, want)
	}
	if got := Unreached(configs, append(reached, "/")); got != "" {
		t.Errorf("Unreached = %q, want none", got)
	}
}

// Send posts the marked object with dryRun=All to the path discovery
// names, and reads the paths from the warnings, also on a failed create.
func TestSend(t *testing.T) {
	var posted map[string]any
	var query string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /apis/example.com/v1", func(w http.ResponseWriter, _ *http.Request) {
		json.NewEncoder(w).Encode(metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
			{Name: "widgets/status", Kind: "Widget", Namespaced: true},
			{Name: "widgets", Kind: "Widget", Namespaced: true},
		}})
	})
	mux.HandleFunc("POST /apis/example.com/v1/namespaces/shop/widgets", func(w http.ResponseWriter, r *http.Request) {
		query = r.URL.RawQuery
		body, _ := io.ReadAll(r.Body)
		json.Unmarshal(body, &posted)
		nonce := posted["metadata"].(map[string]any)["annotations"].(map[string]any)[Annotation].(string)
		w.Header().Add("Warning", `299 - "`+Warning(nonce, "/default")+`"`)
		w.Header().Add("Warning", `299 - "`+Warning(nonce, "/validate")+`"`)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		json.NewEncoder(w).Encode(metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
			Status: metav1.StatusFailure, Code: 403, Reason: metav1.StatusReasonForbidden, Message: "denied by another webhook"})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	kube, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "shop"}}}
	paths, err := Send(t.Context(), kube, obj)
	if !cmp.Equal(paths, []string{"/default", "/validate"}) {
		t.Errorf("paths %v, want [/default /validate]", paths)
	}
	if err == nil || err.Error() != "denied by another webhook" {
		t.Errorf("err %v, want the API server's answer", err)
	}
	if query != "dryRun=All" {
		t.Errorf("query %q, want dryRun=All", query)
	}
	if posted["metadata"].(map[string]any)["generateName"] != "webhook-probe-" {
		t.Errorf("posted %v, want a generateName", posted)
	}
	if _, ok := obj.GetAnnotations()[Annotation]; ok {
		t.Error("Send marked the caller's object")
	}

	obj.SetKind("Gadget")
	if _, err := Send(t.Context(), kube, obj); err == nil {
		t.Error("Send of a kind the API server does not serve succeeded")
	}
}
