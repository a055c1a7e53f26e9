package storagemigration

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// pageSize is how many objects ListAndPatch lists at once; progress is
// reported after each page.
const pageSize = 100

// StorageMigrating is the CRD condition that shows a migration's
// progress: kube-controller-manager's migrator sets it in the
// StorageVersionMigration method, Migrate itself in ListAndPatch.
const StorageMigrating = "StorageMigrating"

// listAndPatch rewrites every object of the CRD's resource at the storage
// version, as kube-controller-manager's migrator does: a merge patch with
// the object's resourceVersion and nothing else, which the API server
// stores at the storage version (it writes nothing for an object stored
// there already). An object changed or deleted since the list needs
// nothing: a write stored it at the storage version. Progress goes to
// the StorageMigrating condition and to events, after each page;
// finishCondition sets its outcome.
func (m *migration) listAndPatch(ctx context.Context, crd *crdState) error {
	gvr := crd.resource()
	running := func(n int) func(*crdState) (bool, error) {
		return func(now *crdState) (bool, error) {
			return now.setCondition(StorageMigrating, "True", "MigrationRunning",
				fmt.Sprintf("Migration to %s is running: %d objects rewritten", crd.storageVersion, n)), nil
		}
	}
	if _, err := m.updateCRDStatus(ctx, crd.name, running(0)); err != nil {
		return err
	}
	var rewritten int
	opts := metav1.ListOptions{Limit: pageSize}
	for {
		page, err := m.client.Resource(gvr).List(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			// The snapshot was compacted: list again from the start;
			// the objects rewritten already cost no write.
			opts.Continue = ""
			continue
		}
		if err != nil {
			return fmt.Errorf("list %s: %w", gvr.GroupResource(), err)
		}
		for _, obj := range page.Items {
			patch, err := json.Marshal(map[string]any{
				"apiVersion": gvr.GroupVersion().String(), "kind": crd.kind,
				"metadata": map[string]any{"resourceVersion": obj.GetResourceVersion()},
			})
			if err != nil {
				return err
			}
			_, err = m.client.Resource(gvr).Namespace(obj.GetNamespace()).Patch(ctx, obj.GetName(), types.MergePatchType, patch,
				metav1.PatchOptions{FieldManager: fieldManager})
			if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
				return fmt.Errorf("rewrite %s %s/%s: %w", crd.kind, obj.GetNamespace(), obj.GetName(), err)
			}
			rewritten++
		}
		if _, err := m.updateCRDStatus(ctx, crd.name, running(rewritten)); err != nil {
			return err
		}
		m.eventf(crd, "Normal", ReasonProgress, "%d objects of %s rewritten at %s", rewritten, gvr.GroupResource(), crd.storageVersion)
		if opts.Continue = page.GetContinue(); opts.Continue == "" {
			break
		}
	}
	return nil
}

// finishCondition sets StorageMigrating to False with the outcome of a
// ListAndPatch migration and its pruning, and returns err. A migration cut
// short by ctx leaves it True: the next run goes on from there.
func (m *migration) finishCondition(ctx context.Context, crd *crdState, err error) error {
	if ctx.Err() != nil {
		return err
	}
	reason, message := "MigrationSucceeded", "The migration has succeeded and the stored versions have been updated"
	if err != nil {
		reason, message = "MigrationFailed", "The migration has failed: "+err.Error()
	}
	if _, werr := m.updateCRDStatus(ctx, crd.name, func(now *crdState) (bool, error) {
		return now.setCondition(StorageMigrating, "False", reason, message), nil
	}); werr != nil && err == nil {
		err = werr
	}
	return err
}

// fieldManager is the manager of Migrate's writes.
const fieldManager = "ctrlkit-storagemigration"
