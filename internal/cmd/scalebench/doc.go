// Command scalebench measures ctrlkit's Deployment controller at scale on
// a local control plane (controller/envtest). Each run starts a fresh
// control plane, creates N Deployments of R replicas, waits until all are
// available, rolls all of them to a new image, waits again, and counts the
// Deployment controller's API writes, reads and CPU-seconds. One command
// per question (run from the repository's root):
//
//	go run ./internal/cmd/scalebench pairs -n 1000 -r 3 -pairs 3
//	go run ./internal/cmd/scalebench shards -n 1000 -r 3 -namespaces 300 -replicas 3
//	go run ./internal/cmd/scalebench memory -n 1000 -r 10 -namespaces 20 -runs 3
//	go run ./internal/cmd/scalebench neighbours -n 300 -r 1 -quiet 20 -pairs 3
//
// pairs: is ours better than kube-controller-manager's own? It runs ours
// and upstream's in alternating pairs (ours first in odd pairs, upstream
// first in even ones), each run on a fresh control plane, and prints every
// run and each target's value per pair, median and spread. With -debounce,
// ours runs with --debounce: the same table then shows what the debounce
// saves in writes and costs in rollout time. Its targets are the 409s,
// the writes and the controller's CPU-seconds over the rollout; the
// rollout and create times are shown, not bound, since on two cores they
// measure the machine more than the controllers.
//
// neighbours: does a quiet namespace's new Deployment wait behind a busy
// one's rollout? N Deployments in namespace busy are created, then all
// rolled; quietAfter into the rollout, -quiet Deployments are created in
// namespace quiet, one every 0.5 s. It reports each quiet Deployment's
// time from its create's request to a watch's first sight of its
// ReplicaSet, and to available, and the busy rollout's time, for ours,
// upstream's and ours without namespace lanes (--namespace-lanes=false),
// in groups of three runs, each group in another order. The controllers
// run under kube-controller-manager's default client limit, 20 QPS and a
// burst of 30, under which every write waits for a token.
//
// With -load (pairs and neighbours), every run's phases run beside one
// shell busy loop per core: the same CPU load on both sides, as a
// compiler sharing the node would make.
//
// shards: does sharding split the work? It runs ours as a shard ring of
// one replica, then of -replicas, over -namespaces namespaces (ns-0,
// ns-1, ...; a ring shards by namespace), and prints what each replica
// caches against what the single one caches, how the keys split, and the
// rollout times.
//
// memory: does ours give back what a burst of work leaves behind? It runs
// ours and a kube-controller-manager with only its Deployment controller
// in -runs alternating pairs. In each run the controller makes the burst
// (the creates, and the rollout unless -rollout=false); then it is
// sampled, stopped, started again on the same objects and sampled again.
// A process is sampled once its Deployment queue has taken a key per
// Deployment and is empty: its RSS at the start and the end of a -settle
// window, and at the end, just after a forced GC, heap_inuse and
// heap_alloc (the live objects; the difference is free room in spans a
// live object keeps). The heap profile of that GC is kept in the run's
// directory as heap-burst.pb.gz and heap-restart.pb.gz.
//
// Ours is examples/deployment-controller, built once per invocation and
// run as a child process (one, or one per ring member with --shard-ring);
// upstream's is a second kube-controller-manager running only its
// Deployment controller, so that each process's CPU is its controller's.
// Both run 5 workers with a client rate limit of 500 QPS, burst 1000
// (neighbours: 20 and 30), beside the control plane's own
// kube-controller-manager, which runs the ReplicaSet controller and the
// garbage collector in every run.
//
// A Deployment counts as available when its status shows spec.replicas
// replicas, all updated and available, on the phase's image, for its
// latest generation. A phase's time runs from just before the first
// create (or image patch) until the last Deployment is available.
//
// Writes are counted by kube-apiserver (apiserver_request_total), which
// has no label for the client: a Deployment controller is the only writer
// of ReplicaSets (not their status) and of Deployment status, and the
// benchmark subtracts its own Deployment creates and patches. Event writes
// are the sum of the counts of the Events from "deployment-controller" (a
// repeated event is one PATCH). The controller processes' CPU-seconds per
// phase (process_cpu_seconds_total at its start and end) and reads (the
// GET requests of rest_client_requests_total: gets, lists and watches,
// from the process's start) come from their own /metrics. A replica's cache comes from its /metrics
// (ctrlkit_shard_cached_objects, ctrlkit_shard_keys_owned).
//
// For what the tables do not show, each run's directory (-dir) keeps, from
// the rollout: a 30-second CPU profile of each controller process from its
// start, and at its end each process's /metrics and allocations
// (/debug/pprof/allocs) and kube-apiserver's /metrics (the server's own
// latencies, which tell a slower controller from a slower machine); and
// at the run's end the Deployment controller's events, in events.tsv, with
// when each was recorded and when it was stored. The log gives when half
// and nine tenths of the Deployments were done.
package main
