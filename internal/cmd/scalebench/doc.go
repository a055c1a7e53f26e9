// Command scalebench measures a Deployment controller at scale on a local
// control plane (see controller/envtest): it creates N Deployments of R
// replicas each, waits until all are available, rolls all of them to a new
// image, waits again, and counts the API writes the Deployment controller
// made. It prints a markdown table.
//
//	go run ./internal/cmd/scalebench -n 1000 -r 3 -controller both
//	go run ./internal/cmd/scalebench -n 20            # a quick check
//	go run ./internal/cmd/scalebench -n 1000 -r 3 -namespaces 300 -shards 3
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
// Our controller runs beside kube-controller-manager, whose ReplicaSet
// controller keeps its own ReplicaSet and pod informers, so in an ours run
// the API server serves those watches twice. -idle-informers makes the
// upstream runs pay that too: it runs in this process the informers our
// controller runs, built the same way, with no controller reading them.
// Comparing upstream runs with and without it measures what the second set
// costs.
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
//
// Each run also logs the mean time kube-apiserver took to serve each kind of
// those writes (apiserver_request_duration_seconds, the same histogram for
// both controllers). It has no code label, so a refused write's time is in
// the mean with the others'.
//
// # Where the CPU goes
//
// Each phase logs the CPU time (user and system, from /proc; Linux only)
// of this process, of each program it started (etcd, kube-apiserver,
// kube-controller-manager, kube-scheduler, kwok, the ring's replicas), and
// how busy the machine's cores were. When they are all busy, every
// component waits on the others, and a Deployment controller's share of the
// CPU bounds what any controller could save: in an ours run this process
// holds our controller, in an upstream run kube-controller-manager holds
// upstream's.
//
// # Sharding (-shards)
//
// -shards n (issue 15) runs our controller as a shard ring
// (controller/sharding) instead, twice, each time on a fresh control plane
// whose kube-apiserver has the ShardedListAndWatch feature gate: first a
// ring of one replica, then a ring of n. -namespaces m spreads the
// Deployments round-robin over m namespaces (a ring shards by namespace;
// without it all are in one and one replica gets everything).
//
// Each replica is a process of its own, so that its heap is its own:
// scalebench starts itself again (os.Executable) with a hidden first
// argument, __replica, which runs our Deployment controller as the ours run
// does (same factory, event recorder, -workers, -qps, -burst, -gogc),
// joined to the ring as examples/deployment-controller joins it: its
// Deployment, ReplicaSet and Pod informers list and watch only its
// namespaces (sharding.Informer; the API server applies the
// ShardSelector) and a Gate admits only its keys. Its client's transport
// counts the bytes of list and watch response bodies (a GET with
// watch=true is a watch, a GET of a collection a list; bodies as decoded,
// after any gzip); the ring's Lease traffic has a client of its own and is
// not counted. A replica writes JSON lines to its stdout file: one when
// its caches are synced and it serves its whole range in a ring of n, and,
// when the benchmark asks (a line "report" on its stdin), one with each
// informer's store length, the heap in use after runtime.GC, the list and
// watch bytes received and the writes sent. The benchmark waits for every
// replica to be ready before it creates anything, asks for the reports once
// the writes have settled (while every replica still runs, so that none
// sees another leave and relists), then sends SIGTERM and, after 45 s,
// SIGKILL. SIGTERM or the end of stdin (the benchmark died) also makes a
// replica report and exit. Replica logs are in the control plane's
// directory (kept with -dir).
//
// After the usual table, a second one gives each replica's cached objects,
// heap, and list and watch bytes, as a share of the single replica's, the
// share of the Deployments that hashing the namespaces gives each range,
// and issue 15's targets, met or not: every sharded replica caches at most
// 40 % of the objects the single replica caches, and the ring of n rolls
// out no slower than the ring of one. On two cores a ring cannot go faster
// (every process and the control plane share them); the run shows that
// each replica's memory and traffic fall to its share.
//
// The hash is FNV-1a (the API server's), whose top bits, which pick the
// range, hardly depend on the last bytes of a name: namespaces that differ
// only at the end (scalebench-000, scalebench-001, ...) all fall in one
// range. The benchmark's are named s000-scalebench, s001-scalebench, ...,
// which spread.
package main
