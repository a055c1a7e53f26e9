package main

// go generate runs controller-gen (sigs.k8s.io/controller-tools) over this
// example's packages: the deep copies next to the API types
// (api/*/zz_generated.deepcopy.go), the CustomResourceDefinition, with
// both versions (v1 stored, +kubebuilder:storageversion), from the types'
// markers and the RBAC roles from the markers below (both in manifests/),
// and the webhook configurations from the markers in webhooks.go
// (manifests/webhook/manifests.yaml). In a module of your own, `go get -tool
// sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0` and write
// `go tool controller-gen ...`; here the tool is pinned in
// internal/tools/go.mod so that ctrlkit's own go.mod stays lean.
//
// controller-gen has no marker for the CRD's spec.conversion (kubebuilder
// adds it with a kustomize patch), so internal/crdconversion, run after
// it, adds it: the conversion webhook at conversionPath of the Service the
// webhook configurations call.
//
//go:generate go tool -modfile=../../internal/tools/go.mod controller-gen object paths=./... crd rbac:roleName=ctrlkit:webapp-operator webhook output:crd:dir=manifests output:rbac:dir=manifests output:webhook:dir=manifests/webhook
//go:generate go run ./internal/crdconversion -service=ctrlkit-system/webapp-operator-webhook -path=/convert manifests/example.ctrlkit.dev_webapps.yaml

// applyconfiguration-gen (k8s.io/code-generator, pinned beside
// controller-gen) writes the WebApp's apply configurations
// (applyconfiguration/api/v1 and v1alpha1), which typed.Client's Apply and
// ApplyStatus send: only the fields set with their With methods, so that
// the operator owns those and no others. It is given no OpenAPI schema, so
// it writes no Extract functions, and the package's NewTypeConverter knows
// no types; the apply configurations do not need either.
//
//go:generate go tool -modfile=../../internal/tools/go.mod applyconfiguration-gen --output-dir applyconfiguration --output-pkg github.com/ctrlkit/ctrlkit/examples/crd-operator/applyconfiguration ./api/v1 ./api/v1alpha1

// The operator's permissions, exactly the requests it makes. Informers
// (list, watch) serve every read of WebApps, Deployments and Services, so
// there is no get.
//
// WebApps: the informer; adding and removing the finalizer (update); the
// status (server-side apply, a patch); owner references with
// blockOwnerDeletion on the Deployment and Service, where the
// OwnerReferencesPermissionEnforcement admission plugin runs (finalizers).
//
// The storage migration (--migrate-storage, migration.go) lists WebApps
// and patches each (list-and-patch), and probes the conversion with a
// dry-run create in the operator's own namespace.
//
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=webapps,verbs=list;watch;update;patch
// +kubebuilder:rbac:groups=example.ctrlkit.dev,namespace=ctrlkit-system,resources=webapps,verbs=create
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=webapps/status,verbs=patch
// +kubebuilder:rbac:groups=example.ctrlkit.dev,resources=webapps/finalizers,verbs=update
//
// Deployments are written with update, Services with merge patches. The
// validating webhook gets them by name (any replica may be asked about any
// namespace, so not from the informers, which --shard-ring narrows).
//
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch
//
// Webhooks (--webhook-bind-address): the configurations whose caBundle the
// elected replica writes, watched on every replica for /readyz.
//
// +kubebuilder:rbac:groups=admissionregistration.k8s.io,resources=validatingwebhookconfigurations;mutatingwebhookconfigurations,verbs=get;list;watch;update
//
// The WebApp's CRD, whose conversion webhook's caBundle the elected
// replica writes too: an informer lists and watches CRDs (which cannot be
// narrowed to one name), and only this one is read and written by name.
//
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=list;watch
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,resourceNames=webapps.example.ctrlkit.dev,verbs=get;update
//
// The storage migration reads the CRD by name too, and writes its status
// (storedVersions, the StorageMigrating condition); with a
// StorageVersionMigration (storagemigration.k8s.io/v1, cluster-scoped, so
// not narrowed by name) it lists them (whether the API is served), creates
// the CRD's, reads its progress, and deletes a failed one to start again.
//
// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,resourceNames=webapps.example.ctrlkit.dev,verbs=update
// +kubebuilder:rbac:groups=storagemigration.k8s.io,resources=storageversionmigrations,verbs=get;list;create;delete
//
// events.k8s.io/v1 events from the manager's recorder: create, and patch
// for a series of repeats.
//
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
//
// /metrics with --metrics-secure: the scraper's token is reviewed by the
// API server (TokenReview), and so is its right to get /metrics
// (SubjectAccessReview), as kubebuilder's metrics-auth-role allows.
//
// +kubebuilder:rbac:groups=authentication.k8s.io,resources=tokenreviews,verbs=create
// +kubebuilder:rbac:groups=authorization.k8s.io,resources=subjectaccessreviews,verbs=create
//
// The registry entries, in their namespace only (--registry-namespace):
// read, written with merge patches, deleted by the finalizer.
//
// +kubebuilder:rbac:groups="",namespace=webapp-registry,resources=configmaps,verbs=get;create;patch;delete
//
// Leader election: one Lease, in the operator's own namespace
// (--leader-elect-resource-namespace), and the core/v1 events the manager
// records on it when leadership changes. With --shard-ring, one Lease per
// replica in that namespace too, which the ring lists.
//
// +kubebuilder:rbac:groups=coordination.k8s.io,namespace=ctrlkit-system,resources=leases,verbs=get;list;create;update
// +kubebuilder:rbac:groups="",namespace=ctrlkit-system,resources=events,verbs=create;patch
//
// The webhook's self-managed certificates: one Secret in the operator's
// namespace (--webhook-namespace), read by an informer on every replica,
// created and rotated by the elected one.
//
// +kubebuilder:rbac:groups="",namespace=ctrlkit-system,resources=secrets,verbs=get;list;watch;create;update
