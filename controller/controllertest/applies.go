package controllertest

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Apply serves a server-side apply as the API server does: the patch is
// merged into the stored object (or a new one) by the field manager, which
// records what manager owns and refuses, unless forced, to change what
// another manager owns (409 Conflict); then the server's rules of a create
// or an update apply, and the result is stored in one write. On the status
// subresource only the patch's status is applied, and the object must
// exist; on the main resource its status is ignored.
func (w *serverWrites) Apply(gvr schema.GroupVersionResource, applied runtime.Object, ns string, opts ...metav1.PatchOptions) error {
	if w.fields == nil {
		return w.ObjectTracker.Apply(gvr, applied, ns, opts...)
	}
	var o metav1.PatchOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.FieldManager == "" {
		return apierrors.NewBadRequest("fieldManager: Required value: is required for apply patch")
	}
	patch, ok := applied.(*unstructured.Unstructured)
	if !ok {
		return fmt.Errorf("apply patch is a %T, want *unstructured.Unstructured", applied)
	}
	keepHalf(patch, w.status)

	live, err := w.ObjectTracker.Get(gvr, ns, patch.GetName(), metav1.GetOptions{})
	exists := err == nil
	switch {
	case apierrors.IsNotFound(err) && !w.status:
		live = w.fields.empty()
	case err != nil:
		return err
	}
	if exists {
		// A resourceVersion in the patch is a precondition, as for an update.
		liveMeta, err := meta.Accessor(live)
		if err != nil {
			return err
		}
		if rv := patch.GetResourceVersion(); rv != "" && rv != liveMeta.GetResourceVersion() {
			return apierrors.NewConflict(gvr.GroupResource(), patch.GetName(), errModified)
		}
	}
	merged, err := w.fields.of(w.status).Apply(live, patch, o.FieldManager, o.Force != nil && *o.Force)
	if err != nil {
		return err
	}
	m, err := meta.Accessor(merged)
	if err != nil {
		return err
	}
	if !exists {
		if err := w.prepareCreate(merged); err != nil {
			return err
		}
		return w.ObjectTracker.Create(gvr, merged, ns, metav1.CreateOptions{FieldManager: o.FieldManager})
	}
	m.SetResourceVersion("") // checked above; the stored one is the precondition now
	if _, err := w.prepareUpdate(gvr, merged, ns); err != nil {
		return err
	}
	return w.ObjectTracker.Update(gvr, merged, ns, metav1.UpdateOptions{FieldManager: o.FieldManager})
}

// keepHalf removes from an apply patch what its endpoint does not write:
// everything but status (and the object's identity) on the status
// subresource, the status on the main resource.
func keepHalf(patch *unstructured.Unstructured, status bool) {
	if !status {
		unstructured.RemoveNestedField(patch.Object, "status")
		return
	}
	for key := range patch.Object {
		switch key {
		case "apiVersion", "kind", "status":
		case "metadata":
			name, namespace, rv := patch.GetName(), patch.GetNamespace(), patch.GetResourceVersion()
			patch.Object["metadata"] = map[string]any{}
			patch.SetName(name)
			patch.SetNamespace(namespace)
			patch.SetResourceVersion(rv)
		default:
			delete(patch.Object, key)
		}
	}
}
