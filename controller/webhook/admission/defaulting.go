package admission

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/defaultpatch"
)

// WithDefaulter returns the handler of a mutating webhook that defaults
// objects of type T on CREATE and UPDATE (other operations are allowed
// untouched). It decodes the request's object into a new T, calls Default
// and answers with a JSON patch of what Default changed, computed against
// the object as sent: fields T does not know are kept, and a Default that
// changes nothing sends no patch. An array whose length Default changes is
// replaced whole. An error from Default denies the request as described
// for WithValidator.
func WithDefaulter[T any](d Defaulter[T]) http.Handler {
	return handler{admit: func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
			return &admissionv1.AdmissionResponse{Allowed: true}
		}
		obj, bad := decodeObject[T](req.Object.Raw, "object")
		if bad != nil {
			return bad
		}
		before, err := json.Marshal(obj)
		if err != nil {
			return internalError(fmt.Errorf("encoding the decoded object: %w", err))
		}
		if err := d.Default(ctx, obj); err != nil {
			return denied(req, err)
		}
		after, err := json.Marshal(obj)
		if err != nil {
			return internalError(fmt.Errorf("encoding the defaulted object: %w", err))
		}
		patch, err := defaultpatch.Patch(req.Object.Raw, before, after)
		if err != nil {
			return internalError(fmt.Errorf("computing the patch: %w", err))
		}
		resp := &admissionv1.AdmissionResponse{Allowed: true}
		if patch != nil {
			pt := admissionv1.PatchTypeJSONPatch
			resp.Patch, resp.PatchType = patch, &pt
		}
		return resp
	}}
}
