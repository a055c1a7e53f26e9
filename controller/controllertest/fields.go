package controllertest

import (
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
)

// The typed API objects share no interface for their spec and status, so
// the server's rules reach them by field name, as Spec and Status.

// field returns the named field of obj, a pointer to a struct, or the
// zero Value when obj has no such field.
func field(obj runtime.Object, name string) reflect.Value {
	v := reflect.ValueOf(obj)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	return v.Elem().FieldByName(name)
}

func hasField(obj runtime.Object, name string) bool { return field(obj, name).IsValid() }

// copyField sets dst's field to a deep copy of src's; it leaves dst alone
// when either lacks the field or the types differ.
func copyField(dst, src runtime.Object, name string) {
	d, s := field(dst, name), field(src.DeepCopyObject(), name)
	if d.IsValid() && s.IsValid() && d.Type() == s.Type() && d.CanSet() {
		d.Set(s)
	}
}

// clearField sets obj's field to its zero value, if obj has it.
func clearField(obj runtime.Object, name string) {
	if f := field(obj, name); f.IsValid() && f.CanSet() {
		f.SetZero()
	}
}

// fieldsEqual reports whether a's and b's fields are semantically equal;
// objects without the field count as equal.
func fieldsEqual(a, b runtime.Object, name string) bool {
	fa, fb := field(a, name), field(b, name)
	if !fa.IsValid() || !fb.IsValid() || fa.Type() != fb.Type() {
		return true
	}
	return equality.Semantic.DeepEqual(fa.Interface(), fb.Interface())
}
