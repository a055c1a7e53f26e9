// Command clientgo-loop drives ctrlkit's deployment.Reconciler from a
// hand-written client-go controller: client-go's own rate-limited work
// queue, informer event handlers written by hand, and the worker loop of
// client-go's sample-controller. Nothing of ctrlkit but the Reconciler is
// used, which is the point: the Reconciler is a plain
// Reconcile(ctx, "namespace/name") function over listers and a client, and
// plugs into foreign controller code as it is.
//
//	go run ./examples/clientgo-loop --kubeconfig "$KUBECONFIG"
//
// There is no leader election here: run one copy. For a production
// process, see examples/deployment-controller.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/ctrlkit/ctrlkit/controller/manager/managerflags"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "clientgo-loop:", err)
		os.Exit(1)
	}
}

// run parses flags, connects, and runs the loop until ctx is cancelled.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	var fss cliflag.NamedFlagSets
	fs := fss.FlagSet("generic")
	kubeconfig := fs.String("kubeconfig", "", "Path to a kubeconfig file. Empty means the in-cluster configuration.")
	workers := fs.Int("workers", 5, "The number of Deployments synced concurrently.")
	managerflags.AddLoggingFlags(fss.FlagSet("logging"))
	if err := managerflags.Parse("clientgo-loop", &fss, args, stdout); err != nil {
		return err
	}
	if *workers < 1 {
		return fmt.Errorf("--workers must be at least 1, got %d", *workers)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return fmt.Errorf("loading client configuration: %w", err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	recorder, stopRecorder := managerflags.NewEventRecorder(ctx, client, "deployment-controller")
	defer stopRecorder()

	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := newLoop(client, factory, recorder)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	defer factory.Shutdown()
	return c.Run(ctx, *workers)
}
