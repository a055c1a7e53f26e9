package kstatuscheck

import (
	"testing"

	"go.uber.org/goleak"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"

	"github.com/ctrlkit/ctrlkit/controller/controllerutil"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// webApp stands for a custom resource: kstatus has no rules of its own for
// it and reads only the generic properties.
type webApp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Status            webAppStatus `json:"status"`
}

type webAppStatus struct {
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
}

// compute is kstatus's verdict on app, through the unstructured form a
// client would read.
func compute(t *testing.T, app *webApp) *status.Result {
	t.Helper()
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(app)
	if err != nil {
		t.Fatal(err)
	}
	res, err := status.Compute(&unstructured.Unstructured{Object: obj})
	if err != nil {
		t.Fatalf("kstatus: %v", err)
	}
	return res
}

// Each helper, with status.observedGeneration set as the helpers ask, gives
// the status kstatus documents for it; a spec the controller has not seen
// yet is InProgress whatever the conditions say.
func TestHelpersAsKstatusReadsThem(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mark       func(obj metav1.Object, conditions *[]metav1.Condition, reason, message string) bool
		observed   int64 // status.observedGeneration; the object is at generation 3
		want       status.Status
		wantReason string
	}{
		{"ready", controllerutil.MarkReady, 3, status.CurrentStatus, ""},
		{"reconciling", controllerutil.MarkReconciling, 3, status.InProgressStatus, "Why"},
		{"stalled", controllerutil.MarkStalled, 3, status.FailedStatus, "Why"},
		{"ready, generation not observed", controllerutil.MarkReady, 2, status.InProgressStatus, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := &webApp{
				TypeMeta:   metav1.TypeMeta{APIVersion: "example.ctrlkit.dev/v1alpha1", Kind: "WebApp"},
				ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "shop", Generation: 3},
			}
			// From a previous state, so that the helper must also clear
			// what no longer holds.
			controllerutil.MarkStalled(app, &app.Status.Conditions, "Before", "before")
			controllerutil.MarkReconciling(app, &app.Status.Conditions, "Before", "before")
			tc.mark(app, &app.Status.Conditions, "Why", "because")
			app.Status.ObservedGeneration = tc.observed

			res := compute(t, app)
			if res.Status != tc.want {
				t.Fatalf("kstatus = %s (%s), want %s; conditions %+v", res.Status, res.Message, tc.want, app.Status.Conditions)
			}
			if tc.wantReason != "" && (len(res.Conditions) == 0 || res.Conditions[0].Reason != tc.wantReason) {
				t.Errorf("kstatus conditions = %+v, want reason %q", res.Conditions, tc.wantReason)
			}
		})
	}
}
