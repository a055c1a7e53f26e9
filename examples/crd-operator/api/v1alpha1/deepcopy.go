package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Hand-written, as deepcopy-gen would write them: informers' stores and
// the helpers copy objects before changing them, so every pointer and
// slice is copied, not shared.

// DeepCopyObject implements runtime.Object.
func (in *WebApp) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns a copy of in sharing no memory with it.
func (in *WebApp) DeepCopy() *WebApp {
	if in == nil {
		return nil
	}
	out := &WebApp{TypeMeta: in.TypeMeta, Spec: in.Spec}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if in.Spec.Replicas != nil {
		out.Spec.Replicas = new(*in.Spec.Replicas)
	}
	out.Status = *in.Status.DeepCopy()
	return out
}

// DeepCopy returns a copy of in sharing no memory with it.
func (in *WebAppStatus) DeepCopy() *WebAppStatus {
	out := *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	return &out
}
