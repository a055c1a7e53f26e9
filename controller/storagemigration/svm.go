package storagemigration

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
)

// svmResource is storagemigration.k8s.io/v1's StorageVersionMigrations.
var svmResource = schema.GroupVersionResource{Group: "storagemigration.k8s.io", Version: "v1", Resource: "storageversionmigrations"}

// svmPoll is how often runSVM reads the migration's status.
const svmPoll = 500 * time.Millisecond

// svmName names the migration of a CRD at a generation: a second call for
// the same spec finds the first one's migration and waits for it, or
// reads its outcome.
func svmName(crd *crdState) string {
	return fmt.Sprintf("%s-%d", crd.name, crd.generation)
}

// runSVM creates the StorageVersionMigration of the CRD (unless it exists)
// and waits until it has succeeded. One that an earlier call left failed
// is deleted and created again; one that fails now is an error. Progress (the migration's Running message) goes to
// events; kube-controller-manager sets the CRD's StorageMigrating
// condition.
func (m *migration) runSVM(ctx context.Context, crd *crdState) error {
	api := m.client.Resource(svmResource)
	name := svmName(crd)
	svm := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": svmResource.GroupVersion().String(), "kind": "StorageVersionMigration",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"resource": map[string]any{"group": crd.group, "resource": crd.plural}},
	}}
	var lastMessage string
	retried := false
	return wait.PollUntilContextCancel(ctx, svmPoll, true, func(ctx context.Context) (bool, error) {
		got, err := api.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = api.Create(ctx, svm, metav1.CreateOptions{FieldManager: fieldManager})
			if err == nil {
				m.eventf(crd, "Normal", ReasonProgress, "StorageVersionMigration %s created", name)
			}
			if apierrors.IsAlreadyExists(err) {
				err = nil
			}
			return false, err
		}
		if err != nil {
			return false, err
		}
		switch {
		case conditionTrue(got, "Succeeded"):
			return true, nil
		case conditionTrue(got, "Failed") && retried:
			return false, fmt.Errorf("StorageVersionMigration %s failed: %s", name, conditionMessage(got, "Failed"))
		case conditionTrue(got, "Failed"):
			// An earlier call's migration failed: start it again, once.
			retried = true
			uid := got.GetUID()
			err := api.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
			if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
				err = nil
			}
			return false, err
		}
		retried = true // a failure from now on is this call's
		if msg := conditionMessage(got, "Running"); msg != "" && msg != lastMessage {
			lastMessage = msg
			m.eventf(crd, "Normal", ReasonProgress, "StorageVersionMigration %s: %s", name, msg)
		}
		return false, nil
	})
}

func conditionTrue(obj *unstructured.Unstructured, t string) bool {
	c := condition(obj, t)
	return c != nil && c["status"] == "True"
}

func conditionMessage(obj *unstructured.Unstructured, t string) string {
	msg, _ := condition(obj, t)["message"].(string)
	return msg
}

func condition(obj *unstructured.Unstructured, t string) map[string]any {
	conditions, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conditions {
		if m, _ := c.(map[string]any); m["type"] == t {
			return m
		}
	}
	return nil
}
