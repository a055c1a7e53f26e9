package controllerutil

import (
	"context"
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// Object is an API object: what typed clients read and write.
type Object interface {
	runtime.Object
	metav1.Object
}

// OperationResult says what CreateOrUpdate or CreateOrPatch did, with
// controller-runtime's values.
type OperationResult string

// The operations.
const (
	// OperationResultNone: the object was already as desired; nothing was written.
	OperationResultNone OperationResult = "unchanged"
	// OperationResultCreated: the object did not exist and was created.
	OperationResultCreated OperationResult = "created"
	// OperationResultUpdated: the object (not its status) was written.
	OperationResultUpdated OperationResult = "updated"
	// OperationResultUpdatedStatus: the object and its status were patched.
	OperationResultUpdatedStatus OperationResult = "updatedStatus"
	// OperationResultUpdatedStatusOnly: only the status was patched.
	OperationResultUpdatedStatusOnly OperationResult = "updatedStatusOnly"
)

// Getter reads an object by name. client-go's typed clients
// (client.AppsV1().Deployments(ns)) and typed.Client have it; so does
// Cached, which reads an informer's cache.
type Getter[T Object] interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (T, error)
}

// Creator creates an object.
type Creator[T Object] interface {
	Create(ctx context.Context, obj T, opts metav1.CreateOptions) (T, error)
}

// Patcher patches an object or one of its subresources.
type Patcher[T Object] interface {
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (T, error)
}

// CreateUpdater is what CreateOrUpdate needs: every client-go typed client
// (kubernetes.Interface's AppsV1().Deployments(ns), ...) and every
// typed.Client is one.
type CreateUpdater[T Object] interface {
	Getter[T]
	Creator[T]
	Updater[T]
}

// CreatePatcher is what CreateOrPatch needs; client-go's typed clients
// and typed.Client are ones.
type CreatePatcher[T Object] interface {
	Getter[T]
	Creator[T]
	Patcher[T]
}

// CreateOrUpdate makes the object named like obj (in the client's
// namespace) what mutate says, reading it with c.Get:
//
//   - if it does not exist, mutate(obj) fills obj in and it is created;
//   - otherwise mutate changes a copy of the existing object, which is
//     written with Update unless mutate changed nothing
//     (equality.Semantic.DeepEqual), with its resourceVersion, so that a
//     concurrent change makes it fail with a Conflict.
//
// It returns the object as the server stored it (or as read, if
// unchanged) and what it did. mutate must set only the fields the caller
// owns, leaving server defaults alone, and must not change the name or
// namespace. The status is not written: use UpdateStatus, or CreateOrPatch.
func CreateOrUpdate[T Object](ctx context.Context, c CreateUpdater[T], obj T, mutate func(T) error) (T, OperationResult, error) {
	existing, err := c.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return create(ctx, c, obj, mutate)
	}
	if err != nil {
		return obj, OperationResultNone, err
	}
	desired, err := mutated(existing, mutate)
	if err != nil {
		return existing, OperationResultNone, err
	}
	if equality.Semantic.DeepEqual(existing, desired) {
		return existing, OperationResultNone, nil
	}
	updated, err := c.Update(ctx, desired, metav1.UpdateOptions{})
	if err != nil {
		return existing, OperationResultNone, err
	}
	return updated, OperationResultUpdated, nil
}

// CreateOrPatch is CreateOrUpdate writing with JSON merge patches (RFC
// 7386, which custom resources accept) of what mutate changed: one of the
// object, without its status, then one of the status subresource if mutate
// changed the status. Fields mutate did not touch are not sent, so a
// concurrent writer of other fields does not conflict. The patches carry
// no resourceVersion: the last writer of a field wins.
func CreateOrPatch[T Object](ctx context.Context, c CreatePatcher[T], obj T, mutate func(T) error) (T, OperationResult, error) {
	existing, err := c.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return create(ctx, c, obj, mutate)
	}
	if err != nil {
		return obj, OperationResultNone, err
	}
	desired, err := mutated(existing, mutate)
	if err != nil {
		return existing, OperationResultNone, err
	}
	objectPatch, statusPatch, err := mergePatches(existing, desired)
	if err != nil {
		return existing, OperationResultNone, err
	}
	current, result := existing, OperationResultNone
	if objectPatch != nil {
		if current, err = c.Patch(ctx, obj.GetName(), types.MergePatchType, objectPatch, metav1.PatchOptions{}); err != nil {
			return existing, OperationResultNone, err
		}
		result = OperationResultUpdated
	}
	if statusPatch != nil {
		patched, err := c.Patch(ctx, obj.GetName(), types.MergePatchType, statusPatch, metav1.PatchOptions{}, "status")
		if err != nil {
			return current, result, err
		}
		current = patched
		if result == OperationResultUpdated {
			result = OperationResultUpdatedStatus
		} else {
			result = OperationResultUpdatedStatusOnly
		}
	}
	return current, result, nil
}

func create[T Object](ctx context.Context, c Creator[T], obj T, mutate func(T) error) (T, OperationResult, error) {
	name, namespace := obj.GetName(), obj.GetNamespace()
	if err := mutate(obj); err != nil {
		return obj, OperationResultNone, err
	}
	if obj.GetName() != name || obj.GetNamespace() != namespace {
		return obj, OperationResultNone, errMovedObject(name, namespace, obj)
	}
	created, err := c.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		return obj, OperationResultNone, err
	}
	return created, OperationResultCreated, nil
}

// mutated returns a copy of existing changed by mutate: existing may belong
// to an informer's cache.
func mutated[T Object](existing T, mutate func(T) error) (T, error) {
	desired := existing.DeepCopyObject().(T)
	if err := mutate(desired); err != nil {
		return existing, err
	}
	if desired.GetName() != existing.GetName() || desired.GetNamespace() != existing.GetNamespace() {
		return existing, errMovedObject(existing.GetName(), existing.GetNamespace(), desired)
	}
	return desired, nil
}

func errMovedObject(name, namespace string, obj metav1.Object) error {
	return fmt.Errorf("mutate changed the object's name or namespace from %s/%s to %s/%s: it must not",
		namespace, name, obj.GetNamespace(), obj.GetName())
}

// mergePatches returns the merge patches from before to after, one
// without status and one of the status alone; nil for no change.
func mergePatches(before, after runtime.Object) (object, status []byte, err error) {
	b, err := runtime.DefaultUnstructuredConverter.ToUnstructured(before)
	if err != nil {
		return nil, nil, err
	}
	a, err := runtime.DefaultUnstructuredConverter.ToUnstructured(after)
	if err != nil {
		return nil, nil, err
	}
	bStatus, aStatus := map[string]any{"status": b["status"]}, map[string]any{"status": a["status"]}
	delete(b, "status")
	delete(a, "status")
	if object, err = mergePatch(b, a); err != nil {
		return nil, nil, err
	}
	if status, err = mergePatch(bStatus, aStatus); err != nil {
		return nil, nil, err
	}
	return object, status, nil
}

func mergePatch(before, after map[string]any) ([]byte, error) {
	b, err := json.Marshal(before)
	if err != nil {
		return nil, err
	}
	a, err := json.Marshal(after)
	if err != nil {
		return nil, err
	}
	patch, err := jsonpatch.CreateMergePatch(b, a)
	if err != nil || string(patch) == "{}" {
		return nil, err
	}
	return patch, nil
}
