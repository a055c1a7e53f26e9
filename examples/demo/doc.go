// Command demo is ctrlkit's first run: it starts a local control plane
// (building it on first use, with progress), runs ctrlkit's Deployment
// controller in this process, creates a Deployment of 5 replicas, rolls it to
// a new image while printing the rollout's progress the way
// `kubectl rollout status` does, shows the resulting ReplicaSets, and stops
// everything.
//
//	go run ./examples/demo                    # local control plane, our controller
//	go run ./examples/demo --kubeconfig FILE   # an existing cluster instead
//	go run ./examples/demo --shards 3          # three sharded replicas, six namespaces
//
// With --kubeconfig, the demo works in a namespace of its own, which it
// deletes at the end; stop the cluster's own Deployment controller first
// (or pass --upstream to watch that one instead of ours), since two
// controllers must not manage the same Deployments.
//
// --upstream runs kube-controller-manager's Deployment controller instead of
// ours, for comparison.
//
// --shards N runs N replicas of our controller in this process instead of
// one, as N replicas of a controller-manager with --shard-ring would run
// (package controller/sharding): each is a member of a ring on Leases with
// its own informers, which cache only its namespaces, and reconciles only
// the Deployments of its share of the namespaces' hash space. The local
// control plane's kube-apiserver then has feature gate ShardedListAndWatch
// on, so the informers' shard selectors are applied on the server. The
// demo creates one Deployment in each of --namespaces namespaces (6 by
// default), rolls them all, and prints a table of which replica owns each
// namespace, which replicas reconciled it, and its rollout's progress.
package main
