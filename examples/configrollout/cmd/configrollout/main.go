// Command configrollout runs the configrollout controller: it rolls the
// pods of opted-in Deployments when a ConfigMap or Secret they use changes.
// See package github.com/ctrlkit/ctrlkit/examples/configrollout for what it
// does, and examples/README.md for how to run it.
//
//	go run ./examples/configrollout/cmd/configrollout --kubeconfig "$KUBECONFIG" --leader-elect=false
//	kubectl annotate deployment web configrollout.ctrlkit.dev/enabled=true
//
// It takes kube-controller-manager's client and leader election flags, plus
// --namespace to watch one namespace only (and cache only its Secrets) and
// --concurrent-syncs.
package main

import "github.com/ctrlkit/ctrlkit/controller/manager/managerflags"

func main() { managerflags.Main("configrollout", run) }
