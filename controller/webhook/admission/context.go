package admission

import (
	"context"

	admissionv1 "k8s.io/api/admission/v1"
)

type requestKey struct{}

// RequestFromContext returns the AdmissionRequest a Defaulter or Validator
// is called for: its operation, user, sub-resource and DryRun. A handler
// with side effects must make none when DryRun is true (and its webhook
// configuration then says sideEffects: NoneOnDryRun).
func RequestFromContext(ctx context.Context) (*admissionv1.AdmissionRequest, bool) {
	req, ok := ctx.Value(requestKey{}).(*admissionv1.AdmissionRequest)
	return req, ok
}

func withRequest(ctx context.Context, req *admissionv1.AdmissionRequest) context.Context {
	return context.WithValue(ctx, requestKey{}, req)
}
