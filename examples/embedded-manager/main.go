// Command embedded-manager is one controller-manager process running two
// controllers under one manager and one leader election: ctrlkit's
// Deployment controller (package deployment) and the configrollout
// controller (examples/configrollout). They share one informer factory, so
// Deployments are listed and watched once, and they work together: when a
// ConfigMap changes, configrollout stamps the pod template and the
// Deployment controller rolls the pods.
//
// This is how kube-controller-manager is built, and how an operator adds
// its controllers next to a reused one:
//
//	go run ./examples/embedded-manager --kubeconfig "$KUBECONFIG" --leader-elect=false
//
// --controllers picks which run, in kube-controller-manager's syntax: "*"
// (the default) runs all, "-name" turns one off, a list of names runs only
// those (deployment, configrollout).
package main

import "github.com/ctrlkit/ctrlkit/controller/manager/managerflags"

func main() { managerflags.Main("embedded-manager", run) }
