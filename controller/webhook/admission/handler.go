package admission

import (
	"context"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/klog/v2"
	sigsjson "sigs.k8s.io/json"

	"github.com/ctrlkit/ctrlkit/controller/internal/webhookprobe"
)

// admitFunc answers one request whose UID is set.
type admitFunc func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse

// handler is the HTTP side shared by defaulting and validating webhooks.
type handler struct {
	admit admitFunc
}

// ServeHTTP answers a request that is no AdmissionReview with an HTTP
// error, and any review with a review: a request that cannot be handled is
// denied with a 400 in it.
func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	logger := klog.FromContext(r.Context())
	req, bad := readReview(w, r)
	if bad != nil {
		bad.Answer(w, r)
		return
	}
	var resp *admissionv1.AdmissionResponse
	if req.UID == "" {
		resp = invalidRequest("the AdmissionReview's request has no uid")
	} else if nonce, ok := webhookprobe.Nonce(req); ok {
		// A readiness or envtest probe: the answer proves the request got
		// here, whatever the handler would say of the object.
		resp = &admissionv1.AdmissionResponse{Allowed: true, Warnings: []string{webhookprobe.Warning(nonce, r.URL.Path)}}
	} else {
		logger = logger.WithValues("webhook", r.URL.Path, "uid", req.UID, "kind", req.Kind.Kind,
			"namespace", req.Namespace, "name", req.Name, "operation", req.Operation)
		ctx := klog.NewContext(withRequest(r.Context(), req), logger)
		resp = h.admit(ctx, req)
	}
	resp.UID = req.UID
	if !resp.Allowed {
		logger.V(2).Info("Denied", "code", resp.Result.Code, "message", resp.Result.Message)
	}
	if err := writeReview(w, resp); err != nil {
		logger.Error(err, "Writing the webhook response")
	}
}

// decodeObject decodes one of the request's objects into a new T, or
// explains in a denial why it cannot.
func decodeObject[T any](raw []byte, which string) (*T, *admissionv1.AdmissionResponse) {
	if len(raw) == 0 {
		return nil, invalidRequest("the request has no %s", which)
	}
	obj := new(T)
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		return nil, invalidRequest("decoding the request's %s: %v", which, err)
	}
	return obj, nil
}
