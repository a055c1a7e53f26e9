package controllertest

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
)

// serverWrites is the fake's tracker with the API server's write rules in
// front of Create, Update and Patch, and, with fields, field management on
// each of them and Apply. It serves one action: status tells whether that
// action is on the status subresource, which the tracker's methods are not
// told.
type serverWrites struct {
	clienttesting.ObjectTracker
	server *apiServer
	status bool
	fields *fieldManagers // nil: no managed fields, Apply left to the tracker
}

// errVersionOnCreate is the server's message for a create of an object
// that has a resourceVersion.
var errVersionOnCreate = errors.New("resourceVersion should not be set on objects to be created")

// errModified is the server's message for a write from a stale copy.
var errModified = errors.New("the object has been modified; please apply your changes to the latest version and try again")

func (w *serverWrites) Create(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.CreateOptions) error {
	if err := w.prepareCreate(obj); err != nil {
		return err
	}
	if w.fields != nil {
		var manager string
		if len(opts) > 0 {
			manager = opts[0].FieldManager
		}
		var err error
		if obj, err = w.fields.of(w.status).Update(w.fields.empty(), obj, manager); err != nil {
			return err
		}
	}
	return w.ObjectTracker.Create(gvr, obj, ns, opts...)
}

// prepareCreate turns obj, the object a client asked to create, into what
// the server stores: a name for generateName, a uid, the first
// resourceVersion and generation, no status.
func (w *serverWrites) prepareCreate(obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if m.GetResourceVersion() != "" {
		// A copy of a stored object, created again without clearing it:
		// the server's storage refuses it, and answers 500.
		return apierrors.NewInternalError(errVersionOnCreate)
	}
	if m.GetName() == "" && m.GetGenerateName() != "" {
		m.SetName(m.GetGenerateName() + w.server.nameSuffix())
	}
	if m.GetUID() == "" {
		// Code that tells objects apart by UID, as the Deployment
		// controller tells its new ReplicaSet from the old ones, must not
		// see every created object as the same one.
		m.SetUID(w.server.uid())
	}
	m.SetResourceVersion(w.server.next())
	if hasField(obj, "Spec") {
		m.SetGeneration(1)
	}
	if !w.status {
		clearField(obj, "Status")
	}
	return nil
}

func (w *serverWrites) Update(gvr schema.GroupVersionResource, obj runtime.Object, ns string, opts ...metav1.UpdateOptions) error {
	stored, err := w.prepareUpdate(gvr, obj, ns)
	if err != nil {
		return err
	}
	var manager string
	if len(opts) > 0 {
		manager = opts[0].FieldManager
	}
	if obj, err = w.updateFields(stored, obj, manager); err != nil {
		return err
	}
	return w.ObjectTracker.Update(gvr, obj, ns, opts...)
}

func (w *serverWrites) Patch(gvr schema.GroupVersionResource, patched runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	stored, err := w.prepareUpdate(gvr, patched, ns)
	if err != nil {
		return err
	}
	var manager string
	if len(opts) > 0 {
		manager = opts[0].FieldManager
	}
	if patched, err = w.updateFields(stored, patched, manager); err != nil {
		return err
	}
	return w.ObjectTracker.Patch(gvr, patched, ns, opts...)
}

// updateFields records what obj changes from stored as manager's (an
// Update entry of managedFields), as the server does on every write but
// an apply. Without fields it returns obj.
func (w *serverWrites) updateFields(stored, obj runtime.Object, manager string) (runtime.Object, error) {
	if w.fields == nil {
		return obj, nil
	}
	return w.fields.of(w.status).Update(stored, obj, manager)
}

// prepareUpdate turns obj, the object a client asked to store over the
// stored one, into what the server stores: it checks the resourceVersion
// precondition, keeps the half (spec or status) the request may not
// change, sets the generation, and gives it a new resourceVersion. It
// returns the stored object.
func (w *serverWrites) prepareUpdate(gvr schema.GroupVersionResource, obj runtime.Object, ns string) (runtime.Object, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	if ns == "" {
		ns = m.GetNamespace()
	}
	stored, err := w.ObjectTracker.Get(gvr, ns, m.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	storedMeta, err := meta.Accessor(stored)
	if err != nil {
		return nil, err
	}
	storedRV := storedMeta.GetResourceVersion()
	if rv := m.GetResourceVersion(); rv != "" && storedRV != "" && rv != storedRV {
		return nil, apierrors.NewConflict(gvr.GroupResource(), m.GetName(), errModified)
	}
	w.server.observe(storedRV)
	if w.status {
		copyField(obj, stored, "Spec")
		m.SetLabels(storedMeta.GetLabels())
		m.SetGeneration(storedMeta.GetGeneration())
	} else {
		copyField(obj, stored, "Status")
		generation := storedMeta.GetGeneration()
		if !fieldsEqual(obj, stored, "Spec") {
			generation++
		}
		m.SetGeneration(generation)
	}
	m.SetResourceVersion(w.server.next())
	return stored, nil
}
