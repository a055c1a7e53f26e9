package typed

import (
	"reflect"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/informers/internalinterfaces"
)

// ScopedInformerFactory is an InformerFactory that says which namespace
// and list options its informers use. NewSharedInformer applies them to
// T's informer, as a generated informer applies its factory's.
type ScopedInformerFactory interface {
	InformerFactory
	// Namespace is the one namespace the factory's informers watch, or
	// empty for all.
	Namespace() string
	// TweakListOptions edits every list and watch request; nil for none.
	TweakListOptions() func(*metav1.ListOptions)
}

// factoryScope is the namespace and list-option tweak of factory's
// informers.
//
// client-go's factory (informers.NewSharedInformerFactoryWithOptions with
// WithNamespace or WithTweakListOptions) keeps both in unexported fields
// and hands them only to its generated group accessors (factory.Apps()
// passes them to every informer it makes); InformerFor does not pass them
// on. So they are read from the factory's struct, checking each field's
// type; a factory of another shape is asked through ScopedInformerFactory,
// and one that is neither is taken as cluster-wide.
func factoryScope(factory InformerFactory) (namespace string, tweak func(*metav1.ListOptions)) {
	if s, ok := factory.(ScopedInformerFactory); ok {
		return s.Namespace(), s.TweakListOptions()
	}
	if _, ok := factory.(informers.SharedInformerFactory); !ok {
		return "", nil
	}
	v := reflect.ValueOf(factory)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return "", nil
	}
	s := v.Elem()
	if f := s.FieldByName("namespace"); f.IsValid() && f.Kind() == reflect.String {
		namespace = f.String()
	}
	if f := s.FieldByName("tweakListOptions"); f.IsValid() && f.Type() == reflect.TypeFor[internalinterfaces.TweakListOptionsFunc]() && !f.IsNil() {
		// An unexported field's value cannot be called through reflect;
		// read it in place (the struct is addressable through its pointer).
		tweak = *(*internalinterfaces.TweakListOptionsFunc)(unsafe.Pointer(f.UnsafeAddr()))
	}
	return namespace, tweak
}
