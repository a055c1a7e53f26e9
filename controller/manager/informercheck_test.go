package manager_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/handler"
)

var _ manager.InformerWatcher = (*controller.Controller[string])(nil)

// A controller watching an informer of a factory never added to the
// Manager makes Run fail within seconds, naming the informer, rather than
// after the controller's cache sync timeout; an added factory's informer
// passes the check.
func TestRunFailsFastOnAnInformerNobodyStarts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		quiet := funcr.New(func(string, string) {}, funcr.Options{})
		client := fake.NewClientset()
		added := informers.NewSharedInformerFactory(client, 0)
		forgotten := informers.NewSharedInformerFactory(client, 0)
		ctrl, err := controller.New("pods", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
			return controller.Result{}, nil
		}), controller.Options[string]{Logger: quiet, CacheSyncTimeout: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if err := ctrl.Watch(added.Core().V1().Pods().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		if err := ctrl.Watch(forgotten.Core().V1().ConfigMaps().Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatal(err)
		}
		mgr, err := manager.New(manager.Options{Logger: quiet})
		if err != nil {
			t.Fatal(err)
		}
		if err := mgr.AddInformerFactory(manager.Factory(added)); err != nil {
			t.Fatal(err)
		}
		if err := mgr.Add(ctrl); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = mgr.Run(t.Context())
		if !errors.Is(err, manager.ErrInformerNotStarted) {
			t.Fatalf("Run = %v, want ErrInformerNotStarted", err)
		}
		if took := time.Since(start); took > 10*time.Second {
			t.Errorf("Run reported after %s", took)
		}
		msg := err.Error()
		if !strings.Contains(msg, "*v1.ConfigMap") || strings.Contains(msg, "*v1.Pod") || !strings.Contains(msg, `"pods"`) {
			t.Errorf("Run = %q; want the controller and the ConfigMap informer named, not the Pod one", msg)
		}
	})
}
