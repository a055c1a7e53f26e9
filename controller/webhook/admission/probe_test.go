package admission_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/internal/webhookprobe"
	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
)

// A dry-run probe (an object marked with webhookprobe.Annotation) is
// answered by every handler with an allowed response and a warning naming
// its path, without calling the user's code; the same object without
// dryRun is handled as usual.
func TestProbeIsAnsweredWithAWarning(t *testing.T) {
	d := &defaultWidget{}
	deny := admission.ValidatorFuncs[Widget]{Create: func(context.Context, *Widget) (admission.Warnings, error) {
		return nil, errString("denied")
	}}
	url, c := webhooktest.Serve(t, map[string]http.Handler{
		"/default":  admission.WithDefaulter[Widget](d),
		"/validate": admission.WithValidator[Widget](deny),
	})
	probe := `{"metadata":{"annotations":{"` + webhookprobe.Annotation + `":"n1"}},"spec":{"size":"s"}}`
	for _, path := range []string{"/default", "/validate"} {
		req := request(admissionv1.Create, probe, "")
		req.DryRun = ptr.To(true)
		resp := admit(t, c, url+path, req)
		if !resp.Allowed || resp.Patch != nil || !cmp.Equal(resp.Warnings, []string{webhookprobe.Warning("n1", path)}) {
			t.Errorf("%s answered the probe with %+v, want allowed, no patch, the probe's warning", path, resp)
		}
		req.DryRun = nil
		if resp := admit(t, c, url+path, req); len(resp.Warnings) != 0 || resp.Allowed == (path == "/validate") {
			t.Errorf("%s answered the object without dryRun with %+v, want the handler's answer", path, resp)
		}
	}
	if calls, _ := d.seen(); len(calls) != 1 {
		t.Errorf("Default called %d times, want once (not for the probe)", len(calls))
	}
}
