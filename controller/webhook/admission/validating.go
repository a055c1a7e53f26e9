package admission

import (
	"context"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"
)

// WithValidator returns the handler of a validating webhook for objects of
// type T: CREATE calls ValidateCreate with the object, UPDATE calls
// ValidateUpdate with the old and the new object, DELETE calls
// ValidateDelete with the object being deleted; any other operation is
// denied as a bad request. Warnings are passed on. An error denies the
// request:
//   - an API status error (apierrors.NewForbidden, ...) is sent as it is;
//   - a *field.Error or a field.ErrorList.ToAggregate() becomes an Invalid
//     status (422) with one cause per field, which kubectl prints;
//   - any other error is a 403 Forbidden with the error's message.
func WithValidator[T any](v Validator[T]) http.Handler {
	return handler{admit: func(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
		var (
			warnings Warnings
			err      error
		)
		switch req.Operation {
		case admissionv1.Create:
			obj, bad := decodeObject[T](req.Object.Raw, "object")
			if bad != nil {
				return bad
			}
			warnings, err = v.ValidateCreate(ctx, obj)
		case admissionv1.Update:
			oldObj, bad := decodeObject[T](req.OldObject.Raw, "oldObject")
			if bad != nil {
				return bad
			}
			newObj, bad := decodeObject[T](req.Object.Raw, "object")
			if bad != nil {
				return bad
			}
			warnings, err = v.ValidateUpdate(ctx, oldObj, newObj)
		case admissionv1.Delete:
			obj, bad := decodeObject[T](req.OldObject.Raw, "oldObject")
			if bad != nil {
				return bad
			}
			warnings, err = v.ValidateDelete(ctx, obj)
		default:
			return invalidRequest("operation %q is not validated by this webhook", req.Operation)
		}
		resp := &admissionv1.AdmissionResponse{Allowed: true}
		if err != nil {
			resp = denied(req, err)
		}
		resp.Warnings = warnings
		return resp
	}}
}
