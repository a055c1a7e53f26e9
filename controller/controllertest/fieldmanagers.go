package controllertest

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// fieldManagers is a custom resource's server-side field management, the
// API server's: managedfields' CRD field manager, the one the server runs
// for a custom resource (and client-go's field-managed object tracker for
// the fake clientset), one for the main resource and one for the status
// subresource. Each ignores the half the other writes, as the server's
// reset fields do: status on the main resource, spec on status.
//
// client-go's field-managed tracker itself is not used: its Apply stores
// the merged object at once, in a tracker of its own, so the server's
// rules (a new resourceVersion, generation, uid, the status subresource's
// limits) would need a second write, which watchers would see.
type fieldManagers struct {
	main, status *managedfields.FieldManager
	empty        func() runtime.Object // the live object of a create
}

// newFieldManagers returns the field managers of gvk's objects, registered
// in scheme. Without the CRD's schema, the type converter deduces the
// structure from the objects: maps (structs) merge field by field, lists
// are atomic, as for a custom resource without a structural schema.
func newFieldManagers(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (*fieldManagers, error) {
	typeConverter := managedfields.NewDeducedTypeConverter()
	gv := gvk.GroupVersion()
	manager := func(subresource, reset string) (*managedfields.FieldManager, error) {
		ignore := map[fieldpath.APIVersion]fieldpath.Filter{
			fieldpath.APIVersion(gv.String()): fieldpath.NewExcludeSetFilter(fieldpath.NewSet(fieldpath.MakePathOrDie(reset))),
		}
		return managedfields.NewDefaultCRDFieldManager(typeConverter, scheme, noDefaults{}, scheme, gvk, gv, subresource, ignore)
	}
	main, err := manager("", "status")
	if err != nil {
		return nil, fmt.Errorf("field manager of %v: %w", gvk, err)
	}
	status, err := manager("status", "spec")
	if err != nil {
		return nil, fmt.Errorf("field manager of %v's status: %w", gvk, err)
	}
	empty := func() runtime.Object {
		obj, _ := scheme.New(gvk) // registered by the caller
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		return obj
	}
	return &fieldManagers{main: main, status: status, empty: empty}, nil
}

// of returns the field manager of the main resource or, with status, of
// the status subresource.
func (f *fieldManagers) of(status bool) *managedfields.FieldManager {
	if status {
		return f.status
	}
	return f.main
}

// noDefaults is the fake's defaulting: none, as the fake has no schema.
type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}
