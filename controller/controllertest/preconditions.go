package controllertest

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clienttesting "k8s.io/client-go/testing"
)

// checkPreconditions fails a delete whose preconditions do not hold for
// the stored object, with the server's Conflict; a delete that passes (or
// names an object that does not exist) is left to the fake.
func checkPreconditions(tracker clienttesting.ObjectTracker, action clienttesting.Action) error {
	d, ok := action.(clienttesting.DeleteActionImpl)
	if !ok || d.DeleteOptions.Preconditions == nil {
		return nil
	}
	stored, err := tracker.Get(d.GetResource(), d.GetNamespace(), d.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil
	}
	m, err := meta.Accessor(stored)
	if err != nil {
		return nil
	}
	p := d.DeleteOptions.Preconditions
	var failed error
	switch {
	case p.UID != nil && *p.UID != m.GetUID():
		failed = fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, m.GetUID())
	case p.ResourceVersion != nil && *p.ResourceVersion != m.GetResourceVersion():
		failed = fmt.Errorf("precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, m.GetResourceVersion())
	default:
		return nil
	}
	return apierrors.NewConflict(d.GetResource().GroupResource(), d.GetName(), failed)
}
