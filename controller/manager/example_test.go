package manager_test

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
)

// podCounter stands in for a controller.Controller: a named runnable that
// waits for its cache, does its work, and stops when its context ends.
type podCounter struct {
	pods   listersv1.PodLister
	synced cache.InformerSynced
	done   chan<- struct{}
}

func (c *podCounter) Name() string             { return "pod-counter" }
func (c *podCounter) NeedLeaderElection() bool { return true }
func (c *podCounter) HasSynced() bool          { return c.synced() }

func (c *podCounter) Run(ctx context.Context) error {
	if !cache.WaitForCacheSync(ctx.Done(), c.synced) {
		return nil // stopped before the cache synced
	}
	pods, err := c.pods.List(labels.Everything())
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d pods in the cache\n", c.Name(), len(pods))
	close(c.done)
	<-ctx.Done()
	return nil
}

func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
}

// A manager with leader election, one informer factory and one
// controller-like runnable. A real main passes a clientset built from its
// kubeconfig and runs until manager.SetupSignalHandler() is cancelled.
func Example() {
	client := fake.NewClientset(pod("a"), pod("b"))

	mgr, err := manager.New(manager.Options{
		HealthProbeAddr: "", // e.g. ":10257" in production
		MetricsAddr:     "", // e.g. ":8080"
		Lease:           lease.Config{Client: client, Namespace: "kube-system", ID: "replica-1"},
		LeaderElection: manager.LeaderElection{
			Enabled:         true,
			Name:            "pod-counter",
			ReleaseOnCancel: true,
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	factory := informers.NewSharedInformerFactory(client, 0)
	pods := factory.Core().V1().Pods()
	done := make(chan struct{})
	counter := &podCounter{pods: pods.Lister(), synced: pods.Informer().HasSynced, done: done}
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		fmt.Println(err)
		return
	}
	if err := mgr.Add(counter); err != nil {
		fmt.Println(err)
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-done // in a real main: a signal
		cancel()
	}()
	if err := mgr.Run(ctx); err != nil {
		fmt.Println(err)
		return
	}
	lease, err := client.CoordinationV1().Leases("kube-system").Get(context.Background(), "pod-counter", metav1.GetOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("lease holder after Run: %q\n", *lease.Spec.HolderIdentity)
	// Output:
	// pod-counter: 2 pods in the cache
	// lease holder after Run: ""
}

// Two replicas share one Lease: the second waits as a warm standby and takes
// over as soon as the first shuts down and releases the Lease.
func ExampleManager_Elected() {
	client := fake.NewClientset()
	quiet := funcr.New(func(string, string) {}, funcr.Options{})
	newReplica := func(id string) *manager.Manager {
		mgr, err := manager.New(manager.Options{
			Logger: quiet,
			Lease: lease.Config{
				Client: client, Namespace: "kube-system", ID: id,
				// Short timings keep the example fast; production keeps the defaults.
				LeaseDuration: 5 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: 100 * time.Millisecond,
			},
			LeaderElection: manager.LeaderElection{Enabled: true, Name: "demo", ReleaseOnCancel: true},
		})
		if err != nil {
			panic(err)
		}
		return mgr
	}
	run := func(mgr *manager.Manager) (stop func()) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- mgr.Run(ctx) }()
		return func() {
			cancel()
			if err := <-done; err != nil {
				fmt.Println(err)
			}
		}
	}

	first, second := newReplica("replica-1"), newReplica("replica-2")
	stopFirst := run(first)
	<-first.Elected()
	fmt.Println("replica-1 leads")
	stopSecond := run(second)

	stopFirst()
	fmt.Println("replica-1 stopped")
	<-second.Elected()
	fmt.Println("replica-2 leads")
	stopSecond()
	// Output:
	// replica-1 leads
	// replica-1 stopped
	// replica-2 leads
}

// Command-line flags in the style of kube-controller-manager.
func ExampleOptions_BindFlags() {
	opts := manager.Options{
		HealthProbeAddr: ":10257",
		Lease:           lease.Config{Namespace: "kube-system"},
		LeaderElection:  manager.LeaderElection{Name: "my-controller"},
	}
	fs := flag.NewFlagSet("my-controller", flag.ContinueOnError)
	opts.BindFlags(fs)
	if err := fs.Parse([]string{"--leader-elect", "--leader-elect-lease-duration=30s"}); err != nil {
		fmt.Println(err)
		return
	}
	le, l := opts.LeaderElection, opts.Lease
	fmt.Println(le.Enabled, l.Namespace+"/"+le.Name, l.LeaseDuration, l.RenewDeadline, opts.HealthProbeAddr)
	// Output: true kube-system/my-controller 30s 10s :10257
}
