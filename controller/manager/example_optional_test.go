package manager_test

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/builder"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	"github.com/ctrlkit/ctrlkit/handler"
)

// ServiceMonitor is the part of the Prometheus operator's type this
// operator reads.
type ServiceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

func (m *ServiceMonitor) DeepCopyObject() runtime.Object {
	out := *m
	m.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

var serviceMonitors = typed.Resource{Group: "monitoring.coreos.com", Version: "v1",
	Resource: "servicemonitors", Kind: "ServiceMonitor", Namespaced: true}

// An operator that reconciles ServiceMonitors where the Prometheus
// operator's CRDs are installed, and runs without them elsewhere: the
// controller and its informer are built when the CRD appears and stopped
// when it goes.
func ExampleManager_AddOptional() {
	var config *rest.Config // from the kubeconfig or the cluster
	client := kubernetes.NewForConfigOrDie(config)
	mgr, _ := manager.New(manager.Options{Client: client, RESTConfig: config})
	monitors, _ := typed.NewClient[*ServiceMonitor](config, serviceMonitors)
	reconcile := func(ctx context.Context, key string) (controller.Result, error) {
		return controller.Result{}, nil
	}
	_ = mgr.AddOptional(manager.Optional{
		Name:      "monitoring",
		Resources: []schema.GroupVersionResource{serviceMonitors.GroupVersionResource()},
		Setup: func(reg manager.Registrar) error {
			factory := informers.NewSharedInformerFactory(client, 0) // new each time: an informer runs once
			informer := typed.NewSharedInformer(factory, monitors, typed.InformerOptions{})
			if _, err := builder.ControllerManagedBy(reg, "servicemonitors", handler.ObjectKey).
				For(informer.Informer(), serviceMonitors.GroupKind(), serviceMonitors.Scope()).
				Complete(controller.ReconcilerFunc[string](reconcile)); err != nil {
				return err
			}
			return reg.AddInformerFactory(manager.Factory(factory))
		},
	})
	_ = mgr.Run(manager.SetupSignalHandler())
}
