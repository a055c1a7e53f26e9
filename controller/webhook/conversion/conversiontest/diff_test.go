package conversiontest

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/controller/webhook/conversion/internal/testtypes"
)

// TestFirstDiffSpellsJSONPaths: inlined structs vanish, fields take their
// JSON names, maps and lists their keys; nil and empty are equal.
func TestFirstDiffSpellsJSONPaths(t *testing.T) {
	base := func() *testtypes.WidgetV1 {
		return &testtypes.WidgetV1{
			TypeMeta:   metav1.TypeMeta{Kind: "Widget"},
			ObjectMeta: metav1.ObjectMeta{Name: "w", Annotations: map[string]string{"a": "1"}},
			Status:     testtypes.WidgetStatus{Conditions: []metav1.Condition{{Type: "A"}, {Type: "B", Reason: "x"}}},
		}
	}
	for _, tc := range []struct {
		name         string
		change       func(*testtypes.WidgetV1)
		path, vx, vy string
	}{
		{"inline TypeMeta", func(w *testtypes.WidgetV1) { w.Kind = "Gadget" }, "kind", `"Widget"`, `"Gadget"`},
		{"a map's key", func(w *testtypes.WidgetV1) { w.Annotations["a"] = "2" }, "metadata.annotations[a]", `"1"`, `"2"`},
		{"a key gone", func(w *testtypes.WidgetV1) { delete(w.Annotations, "a") }, "metadata.annotations[a]", `"1"`, "absent"},
		{"a list's element", func(w *testtypes.WidgetV1) { w.Status.Conditions[1].Reason = "y" }, "status.conditions[1].reason", `"x"`, `"y"`},
		{"a nested field", func(w *testtypes.WidgetV1) { w.Spec.Image.Tag = "v2" }, "spec.image.tag", `""`, `"v2"`},
	} {
		changed := base()
		tc.change(changed)
		path, vx, vy, ok := firstDiff(base(), changed)
		if ok || path != tc.path || vx != tc.vx || vy != tc.vy {
			t.Errorf("%s: got %q %s → %s (equal %t), want %q %s → %s", tc.name, path, vx, vy, ok, tc.path, tc.vx, tc.vy)
		}
	}
	empty := base()
	empty.Spec.Tags, empty.Labels = []string{}, map[string]string{}
	if path, _, _, ok := firstDiff(base(), empty); !ok {
		t.Errorf("nil and empty differ at %s", path)
	}
}
