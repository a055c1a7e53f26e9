// Command deployment-controller runs ctrlkit's Deployment controller on its
// own, the way kube-controller-manager runs its Deployment controller: same
// flag spellings (--kubeconfig, --master, --concurrent-deployment-syncs,
// --kube-api-qps, --kube-api-burst, --leader-elect*), leader election on a
// Lease, /healthz, /readyz and /metrics, and a graceful shutdown on SIGTERM.
//
// Run it where kube-controller-manager's own Deployment controller is off
// (kube-controller-manager --controllers=*,-deployment), or the two will
// fight over every Deployment.
//
//	go run ./examples/deployment-controller --kubeconfig "$KUBECONFIG" --leader-elect=false
//
// Without --kubeconfig and --master it uses the in-cluster configuration;
// manifests/ holds least-privilege RBAC and a Deployment to run it in a
// cluster, and Dockerfile builds its image. See examples/README.md.
package main

import "github.com/ctrlkit/ctrlkit/controller/manager/managerflags"

func main() { managerflags.Main("deployment-controller", run) }
