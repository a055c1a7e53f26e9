package operatoruser

import (
	"context"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/builder"
	"github.com/ctrlkit/ctrlkit/controller/manager"
	"github.com/ctrlkit/ctrlkit/controller/typed"
	"github.com/ctrlkit/ctrlkit/handler"

	v1 "example.com/operatoruser/api/v1"
)

// greeter writes each Greeting's status.greeting.
type greeter struct {
	greetings typed.Lister[*v1.Greeting]
	client    *typed.Client[*v1.Greeting]
}

// Reconcile greets the Greeting named by key, "namespace/name".
func (g *greeter) Reconcile(ctx context.Context, key string) (controller.Result, error) {
	namespace, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return controller.Result{}, controller.TerminalError(err)
	}
	greeting, err := g.greetings.Namespace(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		return controller.Result{}, nil
	}
	if err != nil {
		return controller.Result{}, err
	}
	text := strings.Repeat("Hello, "+greeting.Spec.Name+"! ", int(greeting.Spec.Times))
	if greeting.Status.Greeting == text && greeting.Status.ObservedGeneration == greeting.Generation {
		return controller.Result{}, nil
	}
	greeting = greeting.DeepCopy()
	greeting.Status = v1.GreetingStatus{Greeting: text, ObservedGeneration: greeting.Generation}
	_, err = g.client.Namespace(namespace).UpdateStatus(ctx, greeting, metav1.UpdateOptions{})
	return controller.Result{}, err
}

// newManager returns a manager running the greeter against config's API
// server.
func newManager(config *rest.Config) (*manager.Manager, error) {
	kube, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	client, err := typed.NewClient[*v1.Greeting](config, v1.Resource)
	if err != nil {
		return nil, err
	}
	mgr, err := manager.New(manager.Options{})
	if err != nil {
		return nil, err
	}
	factory := informers.NewSharedInformerFactory(kube, 0)
	if err := mgr.AddInformerFactory(manager.Factory(factory)); err != nil {
		return nil, err
	}
	informer := typed.NewSharedInformer(factory, client, typed.InformerOptions{})
	_, err = builder.ControllerManagedBy(mgr, "greeter", handler.ObjectKey).
		For(informer.Informer(), v1.Resource.GroupKind(), v1.Resource.Scope()).
		Complete(&greeter{greetings: informer.Lister(), client: client})
	if err != nil {
		return nil, err
	}
	return mgr, nil
}
