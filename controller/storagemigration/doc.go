// Package storagemigration moves the objects of a CustomResourceDefinition
// that etcd holds at older versions to its storage version, and then
// drops the older versions from the CRD's status.storedVersions, so that
// they can be removed from the CRD.
//
// After switching the storage version of a CRD (and with its conversion
// webhook serving), call Migrate:
//
//	err := storagemigration.Migrate(ctx, dynamicClient, "widgets.example.com",
//		storagemigration.Options{Recorder: mgr.EventsV1RecorderFor("widget-migration")})
//
// Method Auto (the zero Options) uses Kubernetes' own migrator where the
// API server serves storagemigration.k8s.io/v1 (GA in v1.37): it creates a
// StorageVersionMigration for the CRD's resource and waits until
// kube-controller-manager's storage-version-migrator-controller has run
// it. Elsewhere it uses ListAndPatch: it lists the objects and patches
// each with its own resourceVersion and nothing else, which the API
// server stores at the storage version, as that controller does. Choose
// ListAndPatch where the API is served but no controller runs it (the
// local control plane in APIServerOnly mode). kube-controller-manager
// starts a migration once its cache of the resource has seen a resource
// version past the migration's: with no writes to the resource, at its
// next watch bookmark, about a minute later.
//
// What Migrate guarantees:
//
//   - On success, every object stored before the call is stored at the
//     storage version and status.storedVersions is [storage version]. An
//     object written during the call is written at the storage version.
//   - It is idempotent: with storedVersions already pruned it returns nil
//     at once, and rewriting an object stored at the storage version
//     writes nothing.
//   - It is resumable: cut short, it leaves storedVersions as they were,
//     and the next call finishes the job (ListAndPatch rewrites again;
//     StorageVersionMigration finds the migration of the CRD's generation
//     and waits for it, or starts a failed one again).
//   - It prunes nothing if the CRD's spec changed while it ran.
//   - Progress shows in events on the CRD (Options.Recorder; reasons
//     StorageMigrationStarted, StorageMigrationProgress, StoredVersionsPruned,
//     StorageMigrationSucceeded, StorageMigrationFailed) and in the CRD's
//     condition StorageMigrating, which kube-controller-manager's migrator
//     sets, and Migrate sets the same way for ListAndPatch.
//
// It needs RBAC get, update on customresourcedefinitions and their
// status; list and patch on the resource; and for StorageVersionMigration
// get, list, create, delete on storageversionmigrations (list tells Auto
// whether the API is served).
//
// Let the API servers see the new storage version before calling Migrate:
// an API server that still has the old one would store a rewrite there.
package storagemigration
