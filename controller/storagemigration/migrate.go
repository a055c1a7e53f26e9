package storagemigration

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/events"
)

// Method says how Migrate rewrites the stored objects.
type Method int

const (
	// Auto uses a StorageVersionMigration where the API server serves
	// storagemigration.k8s.io/v1, else ListAndPatch.
	Auto Method = iota
	// StorageVersionMigration creates a storagemigration.k8s.io/v1
	// StorageVersionMigration and waits until kube-controller-manager's
	// storage-version-migrator-controller has run it.
	StorageVersionMigration
	// ListAndPatch lists the objects and rewrites each with a patch that
	// changes nothing, which the API server stores at the storage
	// version. For clusters where the API is not served, or no controller
	// runs it.
	ListAndPatch
)

func (m Method) String() string {
	switch m {
	case Auto:
		return "Auto"
	case StorageVersionMigration:
		return "StorageVersionMigration"
	case ListAndPatch:
		return "ListAndPatch"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Options configure Migrate. The zero value chooses the method itself and
// records no events.
type Options struct {
	// Method chooses how the objects are rewritten; zero is Auto.
	Method Method
	// Recorder, if set, records the migration's progress as events on the
	// CRD: Manager.EventsV1RecorderFor gives one.
	Recorder events.EventRecorder
}

// Event reasons, on the CRD.
const (
	ReasonStarted              = "StorageMigrationStarted"
	ReasonProgress             = "StorageMigrationProgress"
	ReasonSucceeded            = "StorageMigrationSucceeded"
	ReasonFailed               = "StorageMigrationFailed"
	ReasonStoredVersionsPruned = "StoredVersionsPruned"
)

// Migrate moves every stored object of the CustomResourceDefinition named
// crdName to its storage version, then sets its status.storedVersions to
// the storage version alone. Switch the storage version first (and let
// the API servers see the switch); a conversion webhook, if the CRD has
// one, must be serving. It returns nil at once if storedVersions holds the storage
// version alone. It is idempotent and resumable: a migration cut short
// (ctx ended, process killed) leaves storedVersions as it was, and calling
// Migrate again finishes it. It does not prune storedVersions if the
// CRD's spec changed while it ran (its generation moved): call it again.
func Migrate(ctx context.Context, client dynamic.Interface, crdName string, opts Options) error {
	m := &migration{client: client, recorder: opts.Recorder}
	start, err := m.getCRD(ctx, crdName)
	if err != nil {
		return fmt.Errorf("storage migration of %s: %w", crdName, err)
	}
	if start.migrated() {
		return nil
	}
	method := opts.Method
	if method == Auto {
		if method, err = m.chooseMethod(ctx); err != nil {
			return fmt.Errorf("storage migration of %s: %w", crdName, err)
		}
	}
	m.eventf(start, "Normal", ReasonStarted, "Migrating the stored objects of %s (stored versions %v) to %s by %s",
		start.resource().GroupResource(), start.storedVersions, start.storageVersion, method)
	switch method {
	case StorageVersionMigration:
		if err = m.runSVM(ctx, start); err == nil {
			err = m.pruneStoredVersions(ctx, start)
		}
	case ListAndPatch:
		if err = m.listAndPatch(ctx, start); err == nil {
			err = m.pruneStoredVersions(ctx, start)
		}
		err = m.finishCondition(ctx, start, err)
	default:
		err = fmt.Errorf("unknown Method %v", method)
	}
	if err != nil {
		if ctx.Err() == nil {
			m.eventf(start, "Warning", ReasonFailed, "%v", err)
		}
		return fmt.Errorf("storage migration of %s: %w", crdName, err)
	}
	return nil
}

// migration is one call of Migrate.
type migration struct {
	client   dynamic.Interface
	recorder events.EventRecorder
}

// chooseMethod is StorageVersionMigration if the API server serves it.
func (m *migration) chooseMethod(ctx context.Context) (Method, error) {
	_, err := m.client.Resource(svmResource).List(ctx, metav1.ListOptions{Limit: 1})
	switch {
	case err == nil:
		return StorageVersionMigration, nil
	case apierrors.IsNotFound(err):
		return ListAndPatch, nil
	}
	return Auto, fmt.Errorf("find out whether %s is served: %w", svmResource.GroupVersion(), err)
}

// pruneStoredVersions sets storedVersions to the storage version alone,
// if the CRD's spec is still the one the migration started with.
func (m *migration) pruneStoredVersions(ctx context.Context, start *crdState) error {
	pruned, err := m.updateCRDStatus(ctx, start.name, func(now *crdState) (bool, error) {
		if now.generation != start.generation || now.storageVersion != start.storageVersion {
			return false, errSpecChanged
		}
		if now.migrated() {
			return false, nil
		}
		now.setStoredVersions([]string{now.storageVersion})
		return true, nil
	})
	if err != nil {
		return err
	}
	if pruned {
		m.eventf(start, "Normal", ReasonStoredVersionsPruned, "status.storedVersions is [%s]", start.storageVersion)
	}
	m.eventf(start, "Normal", ReasonSucceeded, "Every stored object of %s is at %s", start.resource().GroupResource(), start.storageVersion)
	return nil
}

// errSpecChanged stops a migration whose CRD changed under it.
var errSpecChanged = errors.New("the CRD's spec changed during the migration; migrate again")

// eventf records an event on the CRD, if there is a recorder.
func (m *migration) eventf(crd *crdState, eventType, reason, note string, args ...any) {
	if m.recorder != nil {
		m.recorder.Eventf(crd.obj, nil, eventType, reason, "Migrate", note, args...)
	}
}
