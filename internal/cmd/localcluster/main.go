package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "localcluster:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	if len(args) > 0 && args[0] == "build" {
		if len(args) > 1 {
			return fmt.Errorf("build takes no arguments, got %q", args[1:])
		}
		bins, err := binaries.Ensure(ctx, binaries.Options{Full: true, Kubectl: true, Log: os.Stderr})
		if err != nil {
			return err
		}
		fmt.Printf("binaries in %s (%s)\n", bins.Dir, versions(bins))
		return nil
	}

	fs := flag.NewFlagSet("localcluster", flag.ContinueOnError)
	opts := envtest.Options{Mode: envtest.Full, Kubectl: true}
	fs.IntVar(&opts.Nodes, "nodes", 1, "number of kwok `nodes`")
	upstreamDeployment := fs.Bool("upstream-deployment", false, "also run kube-controller-manager's Deployment controller")
	fs.DurationVar(&opts.PodReadyDelay, "pod-ready-delay", 0, "time before a scheduled pod turns Ready")
	fs.DurationVar(&opts.PodReadyJitter, "pod-ready-jitter", 0, "random extra time before a pod turns Ready")
	kcmQPS := fs.Float64("kcm-qps", 200, "kube-controller-manager client `QPS`")
	fs.StringVar(&opts.Dir, "dir", "", "keep the instance's files in `dir` (default: a temporary directory, removed on exit)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q (the only subcommand is build)", fs.Args())
	}
	if opts.Nodes < 1 {
		return fmt.Errorf("-nodes must be at least 1, got %d", opts.Nodes)
	}
	opts.KCMQPS = float32(*kcmQPS)
	opts.Controllers = []string{"replicaset", "garbagecollector"}
	if *upstreamDeployment {
		opts.Controllers = append(opts.Controllers, "deployment")
	}
	opts.Log = os.Stderr

	began := time.Now()
	env, err := envtest.Start(ctx, opts)
	if err != nil {
		return err
	}
	fmt.Printf(`
Local control plane ready in %s (%s).
  kubeconfig: %s
  logs:       %s/<component>.log
  kubectl:    %s

  export KUBECONFIG=%s

%s
Press Ctrl-C to stop it.
`, time.Since(began).Round(100*time.Millisecond), versions(env.Binaries()), env.KubeconfigPath(), env.Dir(),
		env.Binaries().Path("kubectl"), env.KubeconfigPath(), deploymentHint(*upstreamDeployment, env.KubeconfigPath()))

	waitErr := env.Wait(ctx)
	if waitErr != nil {
		fmt.Fprintln(os.Stderr, "localcluster: a component stopped:", waitErr)
	}
	fmt.Fprintln(os.Stderr, "localcluster: stopping")
	return errors.Join(waitErr, env.Stop())
}

func versions(b *binaries.Set) string {
	return fmt.Sprintf("kubernetes %s, etcd %s, kwok %s",
		b.Versions["k8s.io/kubernetes"], b.Versions["go.etcd.io/etcd/server/v3"], b.Versions["sigs.k8s.io/kwok"])
}

// deploymentHint says who runs Deployments, since by default nobody does:
// the cluster is meant for ctrlkit's controller.
func deploymentHint(upstream bool, kubeconfig string) string {
	if upstream {
		return "kube-controller-manager runs its own Deployment controller (-upstream-deployment).\n"
	}
	return "No Deployment controller runs yet: start ctrlkit's with\n" +
		"  go run ./examples/deployment-controller --kubeconfig " + kubeconfig + "\n" +
		"or restart this with -upstream-deployment for kube-controller-manager's.\n"
}
