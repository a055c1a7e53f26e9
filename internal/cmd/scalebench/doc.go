// Command scalebench measures a Deployment controller at scale on a local
// control plane (see controller/envtest): it creates N Deployments of R
// replicas each, waits until all are available, rolls all of them to a new
// image, waits again, and counts the API writes the Deployment controller
// made. It prints a markdown table.
//
//	go run ./internal/cmd/scalebench -n 1000 -r 3 -controller both
//	go run ./internal/cmd/scalebench -n 20            # a quick check
//
// # What is measured
//
// A Deployment counts as available when the controller has observed its
// generation and status.replicas, updatedReplicas and availableReplicas all
// equal spec.replicas, on the current pod template (the rollout phase waits
// for the new image). Each phase's time runs from just before the benchmark's
// first write (the creates, or the image patches) until the last Deployment
// is available.
//
// # Which controller
//
// -controller=ours runs ctrlkit's Deployment controller in this process
// (deployment.NewController) against a control plane whose
// kube-controller-manager has no Deployment controller. -controller=upstream
// starts a control plane whose kube-controller-manager runs its own.
// -controller=both (the default) does one after the other, each on a fresh
// control plane, so neither pays for the other's objects. Everything else is
// the same for both: kube-controller-manager (which runs the ReplicaSet
// controller in both cases) gets the client rate limit -qps/-burst, our
// controller gets the same, and both run -workers Deployment workers
// (kube-controller-manager's --concurrent-deployment-syncs defaults to 5).
//
// kube-scheduler keeps its default client rate limit (50 QPS, burst 100),
// which controller/envtest does not let us change: binding N×R pods takes
// at least N×R/50 seconds in each phase, whichever controller runs.
//
// Our controller shares this process with the benchmark's own create and
// patch workers and its tracker, and so shares their garbage collection.
// -gogc sets this process's GC percent (debug.SetGCPercent; default 100, Go's
// default) to test whether that slows our syncs; kube-controller-manager is a
// process of its own and keeps Go's default. The ours run logs this process's
// GC cycles and GC CPU over the run.
//
// # How writes are counted
//
// kube-apiserver's apiserver_request_total has no label for the client, and
// kube-controller-manager's controllers share one identity, so writes are
// attributed by resource: a Deployment controller is the only writer of
// ReplicaSets (not their status) and of Deployment status, and the benchmark
// subtracts its own Deployment creates and patches. Its events are counted
// from the Event objects whose source is "deployment-controller" (the sum of
// their counts: a repeated event is one PATCH). The same method is applied to
// both controllers. For ours, a counting http.RoundTripper on its client also
// counts every write it sends, as a cross-check.
package main
