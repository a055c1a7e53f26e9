package v1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestDeepCopy: a copy is equal to the original and shares no memory with
// it, so changing the copy leaves a cached original alone.
func TestDeepCopy(t *testing.T) {
	original := &WebApp{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"a": "b"}, Finalizers: []string{"f"}},
		Spec:       WebAppSpec{Image: Image{Repository: "nginx", Tag: "1.27"}, Replicas: ptr.To[int32](2), ContainerPort: 80},
		Status:     WebAppStatus{ObservedGeneration: 3, Conditions: []metav1.Condition{{Type: Available, Status: metav1.ConditionTrue}}},
	}
	want := &WebApp{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"a": "b"}, Finalizers: []string{"f"}},
		Spec:       WebAppSpec{Image: Image{Repository: "nginx", Tag: "1.27"}, Replicas: ptr.To[int32](2), ContainerPort: 80},
		Status:     WebAppStatus{ObservedGeneration: 3, Conditions: []metav1.Condition{{Type: Available, Status: metav1.ConditionTrue}}},
	}
	c := original.DeepCopyObject().(*WebApp)
	if diff := cmp.Diff(want, c); diff != "" {
		t.Fatalf("copy differs (-want +got):\n%s", diff)
	}
	*c.Spec.Replicas = 5
	c.Labels["a"] = "changed"
	c.Finalizers[0] = "changed"
	c.Status.Conditions[0].Status = metav1.ConditionFalse
	if diff := cmp.Diff(want, original); diff != "" {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff)
	}
	if (*WebApp)(nil).DeepCopy() != nil {
		t.Error("a nil WebApp's copy is not nil")
	}
}

// TestImageReference: a tag is joined with a colon, a digest with @.
func TestImageReference(t *testing.T) {
	for _, tc := range []struct {
		image Image
		want  string
	}{
		{Image{Repository: "nginx"}, "nginx"},
		{Image{Repository: "nginx", Tag: "1.27"}, "nginx:1.27"},
		{Image{Repository: "registry.example:5000/team/app", Tag: "v2"}, "registry.example:5000/team/app:v2"},
		{Image{Repository: "nginx", Tag: "sha256:0123456789abcdef0123456789abcdef"}, "nginx@sha256:0123456789abcdef0123456789abcdef"},
	} {
		if got := tc.image.Reference(); got != tc.want {
			t.Errorf("%+v.Reference() = %q, want %q", tc.image, got, tc.want)
		}
	}
}
