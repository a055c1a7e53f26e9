package informer_test

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/handler/informer"
)

// The lean informer registered in a SharedInformerFactory, so that the
// factory's informer and lister for ConfigMaps are the lean one, feeding a
// controller.
func Example() {
	client := fake.NewClientset(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"},
		Data:       map[string]string{"color": "blue"},
	})
	factory := informers.NewSharedInformerFactory(client, 0)
	// Register it before anything asks the factory for a ConfigMap informer.
	lean, err := informer.InFactory(factory, &corev1.ConfigMap{},
		func(c kubernetes.Interface) informer.ListWatcher[*corev1.ConfigMapList] {
			return c.CoreV1().ConfigMaps("")
		},
		informer.Options{})
	if err != nil {
		panic(err)
	}
	configMaps := factory.Core().V1().ConfigMaps()
	fmt.Println("the factory's lister reads the lean informer:", configMaps.Informer().GetIndexer() == lean.GetIndexer())

	seen := make(chan string)
	c, err := controller.New("configmaps", controller.ReconcilerFunc[string](func(_ context.Context, key string) (controller.Result, error) {
		ns, name, _ := cache.SplitMetaNamespaceKey(key)
		cm, err := configMaps.Lister().ConfigMaps(ns).Get(name)
		if err != nil {
			return controller.Result{}, err
		}
		seen <- fmt.Sprintf("%s: color=%s", key, cm.Data["color"])
		return controller.Result{}, nil
	}), controller.Options[string]{Logger: logr.Discard()})
	if err != nil {
		panic(err)
	}
	if err := c.Watch(configMaps.Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
		panic(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx.Done())
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	fmt.Println(<-seen)

	cancel()
	fmt.Println("Run returned", <-done)
	factory.Shutdown()
	// Output:
	// the factory's lister reads the lean informer: true
	// default/settings: color=blue
	// Run returned <nil>
}
