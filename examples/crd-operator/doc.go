// Command crd-operator is a small, real operator: for each WebApp (a
// custom resource, example.ctrlkit.dev/v1, also served as v1alpha1; see
// manifests/) it runs a Deployment and a Service it controls, and records
// the WebApp in a registry namespace, outside the owner graph.
//
//	kubectl apply -f examples/crd-operator/manifests/example.ctrlkit.dev_webapps.yaml -f examples/crd-operator/manifests/namespace.yaml
//	go run ./examples/crd-operator --kubeconfig "$KUBECONFIG" --leader-elect=false
//	kubectl create -f - <<<'{"apiVersion":"example.ctrlkit.dev/v1","kind":"WebApp","metadata":{"name":"web"},"spec":{"image":{"repository":"nginx"}}}'
//	kubectl get webapps,deployments,services; kubectl get configmaps -n webapp-registry
//
// What to copy, file by file:
//
//   - api/v1, api/v1alpha1: the Go types of the two versions with
//     kubebuilder markers, and a typed.Resource naming each; typed.NewClient
//     and typed.NewSharedInformer work from the types. v1 is the hub and
//     the storage version; the operator uses only v1.
//   - convert: the conversion functions between v1alpha1 and v1
//     (spec.port renamed spec.containerPort, spec.image split into
//     repository and tag), registered with conversion.NewHubSpokeConverter,
//     and the test that holds them lossless (conversiontest.RoundTrip).
//   - generate.go: go generate runs controller-gen for the deep copies
//     (api/*/zz_generated.deepcopy.go), the CRD with both versions, their
//     schemas, printer columns and status subresource, and the RBAC role
//     (manifests/role.yaml) from the +kubebuilder:rbac markers; then
//     internal/crdconversion adds the CRD's spec.conversion, which
//     controller-gen has no marker for. Without a webhook server running,
//     reads and writes at v1 work; v1alpha1 needs the conversion webhook.
//   - run.go: the wiring. builder.ControllerManagedBy reconciles WebApps,
//     Owns their Deployments and Services, and Watches the creation and
//     deletion of one in a WebApp's way. With --shard-ring, replicas split
//     the WebApps by namespace (sharding.Shard's informers, Sharded);
//     without it the same code runs one leader over everything.
//   - applyconfiguration: the WebApp's apply configurations, from
//     applyconfiguration-gen (generate.go).
//   - reconciler.go: the reconcile. controllerutil.Finalize adds the
//     finalizer, or on deletion runs the cleanup and removes it; the status
//     is applied only when it changed; controller.RecordWrite makes the
//     next reconcile wait for the caches to hold what this one wrote.
//   - children.go: controllerutil.CreateOrUpdate (the Deployment) and
//     CreateOrPatch (the Service, the registry ConfigMap) over the
//     informers' caches (controllerutil.Cached), SetControllerReference,
//     and the finalizer's cleanup.
//   - status.go: the status applied with an apply configuration (only
//     the operator's own fields and conditions); Available and Progressing
//     (controllerutil.SetCondition), and Ready, Reconciling and Stalled as
//     kstatus reads them, so that kubectl wait --for=condition=Ready works.
//   - webhooks.go, webhookserver.go: the conversion webhook (/convert), a
//     defaulter and a validator on the manager's webhook server
//     (--webhook-bind-address=:9443), with self-managed certificates
//     (certs.SelfManaged), which also write the CRD's caBundle. Markers
//     generate manifests/webhook/manifests.yaml; their comment explains the
//     namespaceSelector, the failurePolicy and why no DELETE is ever
//     blocked by a webhook that is down. /metrics serves the same
//     certificate (--metrics-cert-from-webhook-secret).
//   - migration.go: --migrate-storage (on by default): the elected replica
//     moves the WebApps stored at v1alpha1 to v1 once the API server stores
//     v1 (storagemigration.Migrate). The README gives the upgrade's order.
//   - reconciler_test.go: unit tests on controllertest.NewTypedClient, a
//     fake client for the custom resource.
//
// Leave manifests_test.go (the project's check that the manifests are
// hardened, with a helper internal to this repository) out when you copy.
//
// Bad input: the CRD's schema refuses a WebApp without an image, with
// negative replicas, a port outside 1-65535 or a malformed v1 image. A
// WebApp whose name is taken by an object it does not control does not
// adopt it: NameConflict conditions, a Warning event, a terminal error
// (not retried); the other object's deletion wakes it.
//
// Webhook or CEL? Prefer the API server's own checks where they can say
// it: the schema's markers (above), CEL rules in the CRD
// (+kubebuilder:validation:XValidation, x-kubernetes-validations: e.g.
// self.port != 22, or an immutable field with self == oldSelf), and a
// ValidatingAdmissionPolicy (or MutatingAdmissionPolicy) for rules across
// kinds' own fields or per namespace, with parameters. They need no
// server, certificates or failurePolicy. A webhook is still needed for
// what they cannot do: read other objects (the name check here), compute
// defaults in Go, call out, and convert between CRD versions.
//
// Events are events.k8s.io/v1, from the manager's EventsV1RecorderFor, which
// finds the WebApp's kind in client-go's scheme (run.go registers it).
package main
