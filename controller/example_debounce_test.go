package controller_test

import (
	"context"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
)

// With Debounce, a burst of events on one object gives one reconcile, once
// the object has been quiet for the Debounce: here a ConfigMap written four
// times is reconciled once, with its last content.
func ExampleOptions_debounce() {
	client := fake.NewClientset()
	watching := watchStarted(client, "configmaps")
	factory := informers.NewSharedInformerFactory(client, 0)
	configMaps := factory.Core().V1().ConfigMaps()
	seen := make(chan string, 4)

	reconcile := func(ctx context.Context, key string) (controller.Result, error) {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return controller.Result{}, controller.TerminalError(err)
		}
		cm, err := configMaps.Lister().ConfigMaps(ns).Get(name)
		if err != nil {
			return controller.Result{}, err
		}
		seen <- fmt.Sprintf("%s has %d entries", key, len(cm.Data))
		return controller.Result{}, nil
	}
	c, err := controller.New("configmaps", controller.ReconcilerFunc[string](reconcile), controller.Options[string]{
		Logger:   logr.Discard(),
		Debounce: time.Second, // DebounceMaxWait defaults to 10 s
	})
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
	<-watching

	// One create and three updates, well within a second of each other.
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"}, Data: map[string]string{}}
	cm, _ = client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	for _, k := range []string{"color", "size", "shape"} {
		cm.Data[k] = "set"
		cm, _ = client.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{})
	}
	fmt.Println(<-seen)

	cancel()
	<-done
	factory.Shutdown()
	fmt.Println("reconciles:", len(seen)+1)
	// Output:
	// default/settings has 3 entries
	// reconciles: 1
}
