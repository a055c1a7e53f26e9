package controllerutil

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AddFinalizer adds finalizer to o's finalizers unless it is there, and
// reports whether it changed o.
func AddFinalizer(o metav1.Object, finalizer string) bool {
	if ContainsFinalizer(o, finalizer) {
		return false
	}
	o.SetFinalizers(append(o.GetFinalizers(), finalizer))
	return true
}

// RemoveFinalizer removes every occurrence of finalizer from o's
// finalizers, and reports whether it changed o.
func RemoveFinalizer(o metav1.Object, finalizer string) bool {
	f := o.GetFinalizers()
	kept := slices.DeleteFunc(slices.Clone(f), func(s string) bool { return s == finalizer })
	if len(kept) == len(f) {
		return false
	}
	o.SetFinalizers(kept)
	return true
}

// ContainsFinalizer reports whether o has finalizer.
func ContainsFinalizer(o metav1.Object, finalizer string) bool {
	return slices.Contains(o.GetFinalizers(), finalizer)
}

// Updater writes a whole object: client-go's typed clients and typed.Client
// have this method.
type Updater[T Object] interface {
	Update(ctx context.Context, obj T, opts metav1.UpdateOptions) (T, error)
}

// Finalize runs the finalizer protocol for obj, which may come from an
// informer's cache (it is not modified):
//
//   - obj is not being deleted: finalizer is added if missing (an Update),
//     and Finalize returns the object as written, deleting false; the
//     reconciler carries on with it;
//   - obj is being deleted and has finalizer: cleanup runs, then finalizer
//     is removed (an Update), so the API server can finish the deletion;
//     deleting is true and the reconciler must stop. If cleanup fails,
//     Finalize returns its error and keeps finalizer, so the deletion
//     waits and the key is retried;
//   - obj is being deleted without finalizer: nothing to do, deleting is
//     true.
//
// Cleanup is for what the garbage collector cannot reach (objects in other
// namespaces, things outside the cluster) and must be idempotent: it runs
// again if removing finalizer fails.
func Finalize[T Object](ctx context.Context, c Updater[T], obj T, finalizer string, cleanup func(context.Context, T) error) (current T, deleting bool, err error) {
	if obj.GetDeletionTimestamp() == nil {
		if ContainsFinalizer(obj, finalizer) {
			return obj, false, nil
		}
		withFinalizer := obj.DeepCopyObject().(T)
		AddFinalizer(withFinalizer, finalizer)
		updated, err := c.Update(ctx, withFinalizer, metav1.UpdateOptions{})
		if err != nil {
			return obj, false, fmt.Errorf("adding finalizer %s: %w", finalizer, err)
		}
		return updated, false, nil
	}
	if !ContainsFinalizer(obj, finalizer) {
		return obj, true, nil
	}
	if err := cleanup(ctx, obj); err != nil {
		return obj, true, fmt.Errorf("finalizer %s: cleanup: %w", finalizer, err)
	}
	without := obj.DeepCopyObject().(T)
	RemoveFinalizer(without, finalizer)
	updated, err := c.Update(ctx, without, metav1.UpdateOptions{})
	if err != nil {
		return obj, true, fmt.Errorf("removing finalizer %s: %w", finalizer, err)
	}
	return updated, true, nil
}
