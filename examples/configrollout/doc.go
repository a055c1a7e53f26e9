// Package configrollout is a controller an operator author would write with
// ctrlkit: it rolls a Deployment's pods when a ConfigMap or Secret they use
// changes.
//
// Kubernetes does not restart pods when their configuration changes:
// variables from env and envFrom never change, and mounted files change
// only eventually (and never under subPath). This controller hashes the
// data of every ConfigMap and Secret a Deployment's pod template reads
// (volumes, projected volumes, envFrom, env valueFrom, in every container)
// and stamps the hash on the pod template as [HashAnnotation]. When the
// hash changes, so does the template, and the Deployment controller rolls
// the pods with the Deployment's own strategy, maxSurge and
// maxUnavailable.
//
// # Opting in
//
// Only Deployments annotated configrollout.ctrlkit.dev/enabled: "true"
// ([EnabledAnnotation]) are touched. A newly opted-in Deployment is
// adopted without a rollout: the hash is recorded on the Deployment as
// [ObservedHashAnnotation], and the first change of configuration after
// that rolls the pods. Opting out leaves both annotations where they are.
//
// # What it reports
//
// ObservedHashAnnotation is the controller's status: the hash of the
// configuration it last saw for the Deployment. Events on the Deployment
// tell what happened and why ([ReasonConfigChanged], [ReasonConfigTracked],
// [ReasonConfigNotFound]); kubectl describe deployment shows them.
//
// A required ConfigMap or Secret that does not exist blocks the rollout
// (pods could not start without it) with a Warning event until it appears;
// an optional one that does not exist hashes as absent.
//
// # How it is built
//
// [New] wires it in the usual ctrlkit way: a Deployment informer with an
// index from each ConfigMap and Secret to the opted-in Deployments that use
// it ([IndexName]); handler.Map with [UsersOf] to turn a ConfigMap or
// Secret event into those Deployments' keys; predicates that let only data
// changes of configuration ([ConfigPredicate]) and spec or annotation
// changes of opted-in Deployments ([DeploymentPredicate]) through; a
// [Reconciler] that updates with retry.RetryOnConflict against a fresh read
// and records events. The binary is in cmd/configrollout.
//
// It needs get, list and watch on deployments, configmaps and secrets,
// update on deployments, and create and patch on events. Caching every
// Secret in a namespace is a real cost in memory and in trust: run it with
// --namespace where that matters.
package configrollout
