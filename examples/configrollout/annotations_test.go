package configrollout

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func deploymentWith(observed, stamped string) *appsv1.Deployment {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{EnabledAnnotation: "true"}}}
	if observed != "" {
		d.Annotations[ObservedHashAnnotation] = observed
	}
	if stamped != "" {
		d.Spec.Template.Annotations = map[string]string{HashAnnotation: stamped}
	}
	return d
}

func TestChangeFor(t *testing.T) {
	tests := []struct {
		name              string
		observed, stamped string
		hash              string
		want              change
	}{
		{"first sight adopts without a rollout", "", "", "h1", change{observe: true}},
		{"adopted and unchanged", "h1", "", "h1", change{}},
		{"adopted then changed rolls", "h1", "", "h2", change{observe: true, roll: true, from: "h1"}},
		{"rolled and unchanged", "h2", "h2", "h2", change{}},
		{"rolled then changed rolls", "h2", "h2", "h3", change{observe: true, roll: true, from: "h2"}},
		{"lost report is repaired without a rollout", "", "h2", "h2", change{observe: true, from: "h2"}},
		{"template wins over a stale report", "h1", "h2", "h2", change{observe: true, from: "h2"}},
		{"config restored rolls back", "h2", "h2", "h1", change{observe: true, roll: true, from: "h2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := deploymentWith(tt.observed, tt.stamped)
			want := tt.hash
			got := changeFor(d, want)
			if got.observe != tt.want.observe || got.roll != tt.want.roll || (tt.want.from != "" && got.from != tt.want.from) {
				t.Fatalf("changeFor(observed %q, stamped %q, want %q) = %+v, want %+v", tt.observed, tt.stamped, want, got, tt.want)
			}
			copy := d.DeepCopy()
			got.apply(copy, want)
			if next := changeFor(copy, want); !next.none() {
				t.Errorf("after apply, changeFor = %+v, want nothing left to do", next)
			}
			if got.roll != (copy.Spec.Template.Annotations[HashAnnotation] != d.Spec.Template.Annotations[HashAnnotation]) {
				t.Errorf("apply changed the pod template: %v, want %v", !got.roll, got.roll)
			}
		})
	}
}

func TestEnabled(t *testing.T) {
	for value, want := range map[string]bool{"true": true, "false": false, "": false, "yes": false} {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{EnabledAnnotation: value}}}
		if got := Enabled(d); got != want {
			t.Errorf("Enabled(%q) = %v, want %v", value, got, want)
		}
	}
	if Enabled(&appsv1.Deployment{}) {
		t.Error("Enabled(no annotations) = true")
	}
}
