package admission_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	admissionv1 "k8s.io/api/admission/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/controller/webhook/admission"
	"github.com/ctrlkit/ctrlkit/controller/webhook/internal/webhooktest"
)

// defaultWidget sets replicas and a label, and records what it was called
// with.
type defaultWidget struct {
	mu     sync.Mutex // the handler runs on the server's goroutines
	calls  []admissionv1.Operation
	dryRun []bool
}

func (d *defaultWidget) Default(ctx context.Context, w *Widget) error {
	req, ok := admission.RequestFromContext(ctx)
	if !ok {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.calls = append(d.calls, req.Operation)
	d.dryRun = append(d.dryRun, ptr.Deref(req.DryRun, false))
	if w.Spec.Replicas == nil {
		w.Spec.Replicas = ptr.To[int32](1)
	}
	if w.Labels == nil {
		w.Labels = map[string]string{}
	}
	w.Labels["size"] = w.Spec.Size
	return nil
}

// seen returns the operations and dryRun flags Default was called with.
func (d *defaultWidget) seen() ([]admissionv1.Operation, []bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]admissionv1.Operation(nil), d.calls...), append([]bool(nil), d.dryRun...)
}

// applied is the object raw with resp's patch applied.
func applied(t *testing.T, raw string, resp *admissionv1.AdmissionResponse) map[string]any {
	t.Helper()
	if resp.PatchType == nil || *resp.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Fatalf("patch type %v, want JSONPatch", resp.PatchType)
	}
	p, err := jsonpatch.DecodePatch(resp.Patch)
	if err != nil {
		t.Fatalf("patch %s: %v", resp.Patch, err)
	}
	out, err := p.Apply([]byte(raw))
	if err != nil {
		t.Fatalf("applying %s: %v", resp.Patch, err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func jsonMap(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestDefaulterCreateKeepsUnknownFields(t *testing.T) {
	d := &defaultWidget{}
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/default": admission.WithDefaulter[Widget](d)})
	// spec.color and status are unknown to Widget; they must survive.
	raw := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default"},` +
		`"spec":{"size":"m","color":"red"},"status":{"phase":"New"}}`
	resp := admit(t, c, url+"/default", request(admissionv1.Create, raw, ""))
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	want := jsonMap(t, `{"apiVersion":"example.com/v1","kind":"Widget",`+
		`"metadata":{"name":"w1","namespace":"default","labels":{"size":"m"}},`+
		`"spec":{"size":"m","color":"red","replicas":1},"status":{"phase":"New"}}`)
	if diff := cmp.Diff(want, applied(t, raw, resp)); diff != "" {
		t.Errorf("patched object (-want +got):\n%s\npatch: %s", diff, resp.Patch)
	}
	if calls, _ := d.seen(); !cmp.Equal(calls, []admissionv1.Operation{admissionv1.Create}) {
		t.Errorf("Default called for %v", calls)
	}
}

func TestDefaulterUpdate(t *testing.T) {
	d := &defaultWidget{}
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/default": admission.WithDefaulter[Widget](d)})
	raw := `{"metadata":{"name":"w1","labels":{"size":"s"}},"spec":{"size":"l","replicas":3}}`
	old := `{"metadata":{"name":"w1","labels":{"size":"s"}},"spec":{"size":"s","replicas":3}}`
	resp := admit(t, c, url+"/default", request(admissionv1.Update, raw, old))
	if !resp.Allowed {
		t.Fatalf("denied: %+v", resp.Result)
	}
	want := jsonMap(t, `{"metadata":{"name":"w1","labels":{"size":"l"}},"spec":{"size":"l","replicas":3}}`)
	if diff := cmp.Diff(want, applied(t, raw, resp)); diff != "" {
		t.Errorf("patched object (-want +got):\n%s", diff)
	}
}

func TestDefaulterThatChangesNothingSendsNoPatch(t *testing.T) {
	d := &defaultWidget{}
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/default": admission.WithDefaulter[Widget](d)})
	// Already defaulted, with fields Widget drops and zero values it adds
	// (metadata.creationTimestamp): none of that is a change.
	raw := `{"metadata":{"name":"w1","labels":{"size":"s"},"future":1},"spec":{"size":"s","replicas":2,"color":"red"}}`
	resp := admit(t, c, url+"/default", request(admissionv1.Create, raw, ""))
	if !resp.Allowed || resp.Patch != nil || resp.PatchType != nil {
		t.Fatalf("response %+v, want allowed with no patch", resp)
	}
	if calls, _ := d.seen(); len(calls) != 1 {
		t.Errorf("Default called %d times, want 1", len(calls))
	}
}

func TestDefaulterAllowsDeleteUntouched(t *testing.T) {
	d := &defaultWidget{}
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/default": admission.WithDefaulter[Widget](d)})
	resp := admit(t, c, url+"/default", request(admissionv1.Delete, "", `{"spec":{}}`))
	if !resp.Allowed || resp.Patch != nil {
		t.Fatalf("response %+v, want allowed with no patch", resp)
	}
	if calls, _ := d.seen(); len(calls) != 0 {
		t.Errorf("Default called for a DELETE")
	}
}

func TestDefaulterIsToldOfDryRun(t *testing.T) {
	d := &defaultWidget{}
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/default": admission.WithDefaulter[Widget](d)})
	req := request(admissionv1.Create, `{"spec":{"size":"s"}}`, "")
	req.DryRun = ptr.To(true)
	if resp := admit(t, c, url+"/default", req); !resp.Allowed || resp.Patch == nil {
		t.Fatalf("response %+v, want allowed with a patch", resp)
	}
	req.DryRun = nil
	admit(t, c, url+"/default", req)
	if _, dryRun := d.seen(); !cmp.Equal(dryRun, []bool{true, false}) {
		t.Errorf("Default saw dryRun %v, want [true false]", dryRun)
	}
}

func TestDefaulterErrorDenies(t *testing.T) {
	failing := admission.DefaulterFunc[Widget](func(ctx context.Context, w *Widget) error {
		return errString("no defaults today")
	})
	url, c := webhooktest.Serve(t, map[string]http.Handler{"/default": admission.WithDefaulter[Widget](failing)})
	resp := admit(t, c, url+"/default", request(admissionv1.Create, `{"spec":{}}`, ""))
	if resp.Allowed || resp.Result.Code != http.StatusForbidden || resp.Result.Message != "no defaults today" {
		t.Fatalf("response %+v, want a 403 with the error's message", resp)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
