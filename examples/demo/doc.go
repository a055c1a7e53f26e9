// Command demo is ctrlkit's first run: it starts a local control plane
// (building it on first use, with progress), runs ctrlkit's Deployment
// controller in this process, creates a Deployment of 5 replicas, rolls it to
// a new image while printing the rollout's progress the way
// `kubectl rollout status` does, shows the resulting ReplicaSets, and stops
// everything.
//
//	go run ./examples/demo                    # local control plane, our controller
//	go run ./examples/demo --kubeconfig FILE   # an existing cluster instead
//
// With --kubeconfig, the demo works in a namespace of its own, which it
// deletes at the end; stop the cluster's own Deployment controller first
// (or pass --upstream to watch that one instead of ours), since two
// controllers must not manage the same Deployments.
//
// --upstream runs kube-controller-manager's Deployment controller instead of
// ours, for comparison.
package main
