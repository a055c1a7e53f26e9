package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/spf13/pflag"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

type flags struct {
	kubeconfig string
	upstream   bool
	replicas   int
	readyDelay time.Duration
	timeout    time.Duration
	shards     int
	namespaces int
}

func run() error {
	var f flags
	// spf13/pflag, as Kubernetes commands: --kubeconfig, not -kubeconfig.
	fs := pflag.CommandLine
	fs.StringVar(&f.kubeconfig, "kubeconfig", "", "run against the cluster of this kubeconfig instead of a local control plane")
	fs.BoolVar(&f.upstream, "upstream", false, "use kube-controller-manager's Deployment controller instead of ctrlkit's")
	fs.IntVar(&f.replicas, "replicas", 5, "replicas of the demo Deployment")
	fs.DurationVar(&f.readyDelay, "pod-ready-delay", time.Second, "local control plane only: how long a new pod takes to become Ready")
	fs.DurationVar(&f.timeout, "timeout", 3*time.Minute, "give up on a rollout after this long")
	fs.IntVar(&f.shards, "shards", 0, "run this many sharded replicas of ctrlkit's controller, splitting --namespaces namespaces (0: one unsharded controller)")
	fs.IntVar(&f.namespaces, "namespaces", 6, fmt.Sprintf("with --shards: namespaces, one Deployment each (at most %d)", len(shardNamespaces)))
	pflag.Parse()
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if f.replicas < 1 {
		return fmt.Errorf("--replicas must be at least 1, got %d", f.replicas)
	}
	if err := f.checkShards(); err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cfg, cleanup, err := cluster(ctx, f)
	if err != nil {
		return err
	}
	if f.shards > 0 {
		err = demoShards(ctx, cfg, f)
	} else {
		err = demo(ctx, cfg, f)
	}
	return errors.Join(err, cleanup())
}

// checkShards checks the flags of the sharded demo.
func (f flags) checkShards() error {
	switch {
	case f.shards < 0:
		return fmt.Errorf("--shards must not be negative, got %d", f.shards)
	case f.shards > 0 && f.upstream:
		return errors.New("--shards runs ctrlkit's controller: it cannot go with --upstream")
	case f.shards > 0 && (f.namespaces < 1 || f.namespaces > len(shardNamespaces)):
		return fmt.Errorf("--namespaces must be between 1 and %d, got %d", len(shardNamespaces), f.namespaces)
	}
	return nil
}

// featureGates are the control plane's: with --shards, kube-apiserver's
// sharded list and watch (KEP-5866), so that each replica's informers get
// only their namespaces from the server rather than filtering everything.
func featureGates(f flags) map[string]bool {
	if f.shards == 0 {
		return nil
	}
	return map[string]bool{"ShardedListAndWatch": true}
}

// cluster returns the client configuration of the cluster to use, and what
// to do at the end.
func cluster(ctx context.Context, f flags) (*rest.Config, func() error, error) {
	if f.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", f.kubeconfig)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", f.kubeconfig, err)
		}
		return cfg, func() error { return nil }, nil
	}
	fmt.Println("Starting a local control plane (etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok)...")
	began := time.Now()
	controllers := []string{"replicaset", "garbagecollector"}
	if f.upstream {
		controllers = append(controllers, "deployment")
	}
	env, err := envtest.Start(ctx, envtest.Options{
		Mode:           envtest.Full,
		Controllers:    controllers,
		PodReadyDelay:  f.readyDelay,
		PodReadyJitter: f.readyDelay,
		Log:            progressWriter(),
		FeatureGates:   featureGates(f),
	})
	if err != nil {
		return nil, nil, err
	}
	fmt.Printf("Control plane ready in %s. kubeconfig: %s\n\n", time.Since(began).Round(100*time.Millisecond), env.KubeconfigPath())
	return env.RESTConfig(), func() error {
		fmt.Println("\nStopping the local control plane...")
		return env.Stop()
	}, nil
}

// progressWriter shows the control plane's progress: it matters on the first
// run, which builds the binaries for several minutes.
func progressWriter() io.Writer { return os.Stderr }

func demo(ctx context.Context, cfg *rest.Config, f flags) (err error) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ns, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "ctrlkit-demo-"},
	}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	defer func() {
		// A fresh context: ctx may be why we are leaving.
		delCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if derr := client.CoreV1().Namespaces().Delete(delCtx, ns.Name, metav1.DeleteOptions{}); derr != nil && !apierrors.IsNotFound(derr) {
			err = errors.Join(err, fmt.Errorf("delete namespace %s: %w", ns.Name, derr))
		}
	}()

	if f.upstream {
		fmt.Println("Deployment controller: kube-controller-manager's (upstream), as -upstream asks.")
	} else {
		stopController, err := startController(ctx, cfg, ns.Name)
		if err != nil {
			return fmt.Errorf("start ctrlkit's Deployment controller: %w", err)
		}
		defer func() { err = errors.Join(err, stopController()) }()
		fmt.Println("Deployment controller: ctrlkit's, running in this process.")
	}

	deployments := client.AppsV1().Deployments(ns.Name)
	d, err := deployments.Create(ctx, demoDeployment(int32(f.replicas), "nginx:1.27"), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create deployment: %w", err)
	}
	fmt.Printf("\nCreated deployment %q in namespace %q: %d replicas of %s.\n", d.Name, ns.Name, f.replicas, "nginx:1.27")
	if err := rolloutStatus(ctx, client, ns.Name, d.Name, f.timeout, os.Stdout); err != nil {
		return err
	}

	fmt.Printf("\nRolling deployment %q to nginx:1.28 (maxSurge 25%%, maxUnavailable 25%%)...\n", d.Name)
	if _, err := setImage(ctx, client, ns.Name, d.Name, "nginx:1.28"); err != nil {
		return err
	}
	if err := rolloutStatus(ctx, client, ns.Name, d.Name, f.timeout, os.Stdout); err != nil {
		return err
	}

	fmt.Println()
	return printReplicaSets(ctx, client, ns.Name, d.Name, os.Stdout)
}

// demoName is the name of the demo's Deployments.
const demoName = "demo"

func demoDeployment(replicas int32, image string) *appsv1.Deployment {
	labels := map[string]string{"app": "demo"}
	quarter := intstr.FromString("25%")
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: demoName},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &quarter, MaxUnavailable: &quarter},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "web", Image: image}},
				},
			},
		},
	}
}

// setImage changes the image of the Deployment's first container, retrying
// on conflicts with the controller's status writes, and returns the
// Deployment's new generation.
func setImage(ctx context.Context, client kubernetes.Interface, ns, name, image string) (int64, error) {
	for {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return 0, err
		}
		d.Spec.Template.Spec.Containers[0].Image = image
		d, err = client.AppsV1().Deployments(ns).Update(ctx, d, metav1.UpdateOptions{})
		if err == nil {
			return d.Generation, nil
		}
		if !apierrors.IsConflict(err) {
			return 0, err
		}
	}
}
