package typed

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// List is the list of T that List returns and the API server sends: the
// kind's "<Kind>List", so that a user's types need no list type of their
// own.
type List[T Object] struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []T `json:"items"`
}

// DeepCopyObject returns a deep copy of l, its items copied with their own
// DeepCopyObject.
func (l *List[T]) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := &List[T]{TypeMeta: l.TypeMeta}
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]T, len(l.Items))
		for i, item := range l.Items {
			out.Items[i] = item.DeepCopyObject().(T)
		}
	}
	return out
}
