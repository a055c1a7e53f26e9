package controllerutil_test

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

type schemaGVK = schema.GroupVersionKind

func typesUID(s string) types.UID { return types.UID(s) }

// copyMeta returns a deep copy of an API object.
func copyMeta(o metav1.Object) metav1.Object {
	return o.(runtime.Object).DeepCopyObject().(metav1.Object)
}
