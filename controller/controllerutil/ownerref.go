package controllerutil

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

// AlreadyOwnedError is SetControllerReference's error when object already
// has a controller other than owner.
type AlreadyOwnedError struct {
	Object metav1.Object
	Owner  metav1.OwnerReference // the controller it has
}

func (e *AlreadyOwnedError) Error() string {
	return fmt.Sprintf("object %s is already owned by another %s controller %s",
		objectName(e.Object), e.Owner.Kind, e.Owner.Name)
}

// SetControllerReference makes owner, of kind ownerKind, the controller of
// object: an owner reference with controller and blockOwnerDeletion set, so
// the garbage collector deletes object with owner and
// handler.ForControllerOf maps object's events to owner. A reference to
// owner already there (same group, kind and name) is replaced.
//
// It fails, changing nothing, with an *AlreadyOwnedError if object is
// controlled by someone else, and if the reference would be one the garbage
// collector rejects: an owner in another namespace, or a namespaced owner of
// a cluster-scoped object. A cluster-scoped owner of a namespaced object is
// fine.
//
// ownerKind is needed because objects read through typed clients and
// informers carry no apiVersion and kind: appsv1.SchemeGroupVersion.WithKind("Deployment"),
// or typed.Resource's GroupVersionKind.
func SetControllerReference(owner metav1.Object, ownerKind schema.GroupVersionKind, object metav1.Object) error {
	if err := validateOwner(owner, object); err != nil {
		return err
	}
	ref := *metav1.NewControllerRef(owner, ownerKind)
	if existing := metav1.GetControllerOfNoCopy(object); existing != nil && !sameOwner(*existing, ref) {
		return &AlreadyOwnedError{Object: object, Owner: *existing}
	}
	upsertOwnerRef(object, ref)
	return nil
}

// SetOwnerReference adds owner, of kind ownerKind, to object's owners
// without making it the controller: the garbage collector deletes object
// once all its owners are gone. A reference to owner already there is
// replaced (losing its controller flag, if it had one). It fails like
// SetControllerReference on a reference the garbage collector rejects.
func SetOwnerReference(owner metav1.Object, ownerKind schema.GroupVersionKind, object metav1.Object) error {
	if err := validateOwner(owner, object); err != nil {
		return err
	}
	upsertOwnerRef(object, metav1.OwnerReference{
		APIVersion: ownerKind.GroupVersion().String(),
		Kind:       ownerKind.Kind,
		Name:       owner.GetName(),
		UID:        owner.GetUID(),
	})
	return nil
}

// ControllerReferenceApplyConfiguration is SetControllerReference's
// reference as an apply configuration, for server-side apply with
// client-go's apply configurations:
//
//	appsv1ac.Deployment(name, ns).WithOwnerReferences(controllerutil.ControllerReferenceApplyConfiguration(app, kind))
//
// It does not check namespaces or an existing controller: the caller
// applies the object it wants.
func ControllerReferenceApplyConfiguration(owner metav1.Object, ownerKind schema.GroupVersionKind) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(ownerKind.GroupVersion().String()).
		WithKind(ownerKind.Kind).
		WithName(owner.GetName()).
		WithUID(owner.GetUID()).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// validateOwner refuses the references the garbage collector does not
// honour: owners must be cluster-scoped or in their dependent's namespace.
func validateOwner(owner, object metav1.Object) error {
	ownerNS := owner.GetNamespace()
	if ownerNS == "" {
		return nil
	}
	switch objectNS := object.GetNamespace(); {
	case objectNS == "":
		return fmt.Errorf("cluster-scoped object %s must not have a namespaced owner, %s", objectName(object), objectName(owner))
	case objectNS != ownerNS:
		return fmt.Errorf("cross-namespace owner references are disallowed: owner %s, object %s", objectName(owner), objectName(object))
	}
	return nil
}

// sameOwner compares references by group, kind and name: the version may
// differ between two references to one object.
func sameOwner(a, b metav1.OwnerReference) bool {
	ga, errA := schema.ParseGroupVersion(a.APIVersion)
	gb, errB := schema.ParseGroupVersion(b.APIVersion)
	return errA == nil && errB == nil && ga.Group == gb.Group && a.Kind == b.Kind && a.Name == b.Name
}

func upsertOwnerRef(object metav1.Object, ref metav1.OwnerReference) {
	refs := object.GetOwnerReferences()
	for i := range refs {
		if sameOwner(refs[i], ref) {
			refs[i] = ref
			object.SetOwnerReferences(refs)
			return
		}
	}
	object.SetOwnerReferences(append(refs, ref))
}

func objectName(o metav1.Object) string {
	if ns := o.GetNamespace(); ns != "" {
		return ns + "/" + o.GetName()
	}
	return o.GetName()
}
