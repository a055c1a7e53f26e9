package admission_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
)

// call is what a validator was called with.
type call struct {
	op       string
	old, new string // spec.size
	dryRun   bool
}

// recordingValidator allows everything with a warning and records its calls.
type recordingValidator struct {
	mu    sync.Mutex
	calls []call
}

func (v *recordingValidator) record(ctx context.Context, op string, oldObj, newObj *Widget) (admission.Warnings, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	c := call{op: op}
	if req, ok := admission.RequestFromContext(ctx); ok {
		c.dryRun = ptr.Deref(req.DryRun, false)
	}
	if oldObj != nil {
		c.old = oldObj.Spec.Size
	}
	if newObj != nil {
		c.new = newObj.Spec.Size
	}
	v.calls = append(v.calls, c)
	return admission.Warnings{op + " looked at"}, nil
}

func (v *recordingValidator) seen() []call {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]call(nil), v.calls...)
}

func (v *recordingValidator) ValidateCreate(ctx context.Context, obj *Widget) (admission.Warnings, error) {
	return v.record(ctx, "create", nil, obj)
}

func (v *recordingValidator) ValidateUpdate(ctx context.Context, oldObj, newObj *Widget) (admission.Warnings, error) {
	return v.record(ctx, "update", oldObj, newObj)
}

func (v *recordingValidator) ValidateDelete(ctx context.Context, obj *Widget) (admission.Warnings, error) {
	return v.record(ctx, "delete", obj, nil)
}

func TestValidatorFixtures(t *testing.T) {
	v := &recordingValidator{}
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/validate": admission.WithValidator[Widget](v)})
	dryRun := request(admissionv1.Create, `{"spec":{"size":"xs"}}`, "")
	dryRun.DryRun = ptr.To(true)
	for _, tc := range []struct {
		req          admissionv1.AdmissionRequest
		wantWarnings []string
	}{
		{request(admissionv1.Create, `{"spec":{"size":"s"}}`, ""), []string{"create looked at"}},
		{request(admissionv1.Update, `{"spec":{"size":"l"}}`, `{"spec":{"size":"m"}}`), []string{"update looked at"}},
		{request(admissionv1.Delete, "", `{"spec":{"size":"xl"}}`), []string{"delete looked at"}},
		{dryRun, []string{"create looked at"}},
	} {
		resp := admit(t, c, url+"/validate", tc.req)
		if !resp.Allowed || resp.Patch != nil {
			t.Errorf("%s: response %+v, want allowed without a patch", tc.req.Operation, resp)
		}
		if !cmp.Equal(resp.Warnings, tc.wantWarnings) {
			t.Errorf("%s: warnings %q, want %q", tc.req.Operation, resp.Warnings, tc.wantWarnings)
		}
	}
	want := []call{
		{op: "create", new: "s"},
		{op: "update", old: "m", new: "l"},
		{op: "delete", old: "xl"},
		{op: "create", new: "xs", dryRun: true},
	}
	if diff := cmp.Diff(want, v.seen(), cmp.AllowUnexported(call{})); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestValidatorErrors(t *testing.T) {
	sizePath := field.NewPath("spec", "size")
	replicasPath := field.NewPath("spec", "replicas")
	gr := schema.GroupResource{Group: "example.com", Resource: "widgets"}
	for _, tc := range []struct {
		name        string
		err         error
		wantCode    int32
		wantReason  metav1.StatusReason
		wantMessage string
		wantCauses  []metav1.StatusCause
	}{{
		name:       "a field.ErrorList is Invalid with a cause per field",
		err:        field.ErrorList{field.Required(sizePath, ""), field.Invalid(replicasPath, -1, "must not be negative")}.ToAggregate(),
		wantCode:   http.StatusUnprocessableEntity,
		wantReason: metav1.StatusReasonInvalid,
		wantMessage: `Widget.example.com "w1" is invalid: [spec.size: Required value, ` +
			`spec.replicas: Invalid value: -1: must not be negative]`,
		wantCauses: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.size"},
			{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: -1: must not be negative", Field: "spec.replicas"},
		},
	}, {
		name:        "one field error, wrapped",
		err:         errors.Join(field.Forbidden(sizePath, "cannot change")),
		wantCode:    http.StatusUnprocessableEntity,
		wantReason:  metav1.StatusReasonInvalid,
		wantMessage: `Widget.example.com "w1" is invalid: spec.size: Forbidden: cannot change`,
		wantCauses:  []metav1.StatusCause{{Type: metav1.CauseType(field.ErrorTypeForbidden), Message: "Forbidden: cannot change", Field: "spec.size"}},
	}, {
		name:        "an API status error is sent as it is",
		err:         apierrors.NewForbidden(gr, "w1", errors.New("frozen")),
		wantCode:    http.StatusForbidden,
		wantReason:  metav1.StatusReasonForbidden,
		wantMessage: `widgets.example.com "w1" is forbidden: frozen`,
	}, {
		name:        "any other error is Forbidden with its message",
		err:         errors.New("size xl is sold out"),
		wantCode:    http.StatusForbidden,
		wantReason:  metav1.StatusReasonForbidden,
		wantMessage: "size xl is sold out",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			v := admission.ValidatorFuncs[Widget]{
				Create: func(ctx context.Context, obj *Widget) (admission.Warnings, error) {
					return admission.Warnings{"careful"}, tc.err
				},
			}
			url, c := webhooktest.Serve(t, map[string]http.Handler{"/validate": admission.WithValidator[Widget](v)})
			resp := admit(t, c, url+"/validate", request(admissionv1.Create, `{"spec":{"size":"xl"}}`, ""))
			if resp.Allowed || resp.Result == nil {
				t.Fatalf("response %+v, want a denial", resp)
			}
			r := resp.Result
			if r.Status != metav1.StatusFailure || r.Code != tc.wantCode || r.Reason != tc.wantReason || r.Message != tc.wantMessage {
				t.Errorf("result %s %d %s %q, want Failure %d %s %q", r.Status, r.Code, r.Reason, r.Message,
					tc.wantCode, tc.wantReason, tc.wantMessage)
			}
			var causes []metav1.StatusCause
			if r.Details != nil {
				causes = r.Details.Causes
			}
			if diff := cmp.Diff(tc.wantCauses, causes); diff != "" {
				t.Errorf("causes (-want +got):\n%s", diff)
			}
			if !cmp.Equal(resp.Warnings, []string{"careful"}) {
				t.Errorf("warnings %q, want [careful] on a denial too", resp.Warnings)
			}
		})
	}
}

func TestValidatorFuncsAllowWhatTheyLeaveOut(t *testing.T) {
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/validate": admission.WithValidator[Widget](admission.ValidatorFuncs[Widget]{})})
	for _, req := range []admissionv1.AdmissionRequest{
		request(admissionv1.Create, `{}`, ""),
		request(admissionv1.Update, `{}`, `{}`),
		request(admissionv1.Delete, "", `{}`),
	} {
		if resp := admit(t, c, url+"/validate", req); !resp.Allowed {
			t.Errorf("%s denied: %+v", req.Operation, resp.Result)
		}
	}
}
