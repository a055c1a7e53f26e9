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

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/ctrlkit/ctrlkit/controller/manager"
)

func main() {
	err := run(manager.SetupSignalHandler(), os.Args[1:], os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "configrollout:", err)
		os.Exit(1)
	}
}
