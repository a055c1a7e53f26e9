package manager_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/lease"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/handler"
)

// controller.Controller plugs into the Manager through the optional
// interfaces.
var (
	_ manager.Runnable               = (*controller.Controller[string])(nil)
	_ manager.Named                  = (*controller.Controller[string])(nil)
	_ manager.SyncReporter           = (*controller.Controller[string])(nil)
	_ manager.LeaderElectionRunnable = (*controller.Controller[string])(nil)
)

// A real controller under a leader-elected Manager reconciles what its
// informer (started by the Manager) lists, and a second controller with
// the same name is refused.
func TestManagerRunsController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := funcr.New(func(string, string) {}, funcr.Options{})
		client := fake.NewClientset(
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}},
			&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}},
		)
		factory := informers.NewSharedInformerFactory(client, 0)

		var mu sync.Mutex
		var reconciled []string
		all := make(chan struct{})
		ctrl, err := controller.New("pods", controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
			mu.Lock()
			defer mu.Unlock()
			reconciled = append(reconciled, key)
			if len(reconciled) == 2 {
				close(all)
			}
			return controller.Result{}, nil
		}), controller.Options[string]{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := ctrl.Watch(factory.Core().V1().Pods().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}

		mgr, err := manager.New(manager.Options{
			Logger: quiet,
			Lease:  lease.Config{Client: client, Namespace: "kube-system", ID: "me"},
			LeaderElection: manager.LeaderElection{
				Enabled: true, Name: "pods", ReleaseOnCancel: true,
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
			t.Fatal(err)
		}
		if err := mgr.Add(ctrl); err != nil {
			t.Fatal(err)
		}
		twin, err := controller.New("pods", controller.ReconcilerFunc[string](nil), controller.Options[string]{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := mgr.Add(twin); err == nil {
			t.Error("a second controller named pods was accepted")
		}

		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- mgr.Run(ctx) }()
		<-all
		if !ctrl.HasSynced() {
			t.Error("controller reconciling but not synced")
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		slices.Sort(reconciled)
		if want := []string{"ns/a", "ns/b"}; !slices.Equal(reconciled, want) {
			t.Errorf("reconciled %q, want %q", reconciled, want)
		}
	})
}

// TestManagerLoggerReachesReconcilers: a controller without a Logger of its
// own logs, and hands its reconcilers, the Manager's Options.Logger, with
// the controller's values.
func TestManagerLoggerReachesReconcilers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var lines []string
		logger := funcr.New(func(_, args string) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, args)
		}, funcr.Options{})
		reconciled := make(chan struct{})
		ctrl, err := controller.New("logs", controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
			klog.FromContext(ctx).Info("reconciling")
			close(reconciled)
			return controller.Result{}, nil
		}), controller.Options[string]{})
		if err != nil {
			t.Fatal(err)
		}
		mgr, err := manager.New(manager.Options{Logger: logger})
		if err != nil {
			t.Fatal(err)
		}
		if err := mgr.Add(ctrl); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- mgr.Run(ctx) }()
		ctrl.Queue().Add("ns/k")
		<-reconciled
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Run: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.ContainsFunc(lines, func(l string) bool {
			return strings.Contains(l, `"msg"="reconciling"`) && strings.Contains(l, `"controller"="logs"`) &&
				strings.Contains(l, `"key"="ns/k"`) && strings.Contains(l, `"reconcileID"=`)
		}) {
			t.Errorf("no reconcile line with the controller's values in the Manager's log: %q", lines)
		}
	})
}
