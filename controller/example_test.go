package controller_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/handler"
)

// A controller watching ConfigMaps, run against a fake clientset. The
// reconciler reports to the example through a channel so that the output
// is deterministic.
func Example() {
	client := fake.NewClientset(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "settings"},
		Data:       map[string]string{"color": "blue"},
	})
	watching := watchStarted(client, "configmaps")
	factory := informers.NewSharedInformerFactory(client, 0)
	configMaps := factory.Core().V1().ConfigMaps()
	seen := make(chan string)

	// The controller: ~20 lines.
	reconcile := func(ctx context.Context, key string) (controller.Result, error) {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return controller.Result{}, controller.TerminalError(err)
		}
		cm, err := configMaps.Lister().ConfigMaps(ns).Get(name)
		if apierrors.IsNotFound(err) {
			seen <- key + " is gone"
			return controller.Result{}, nil
		}
		if err != nil {
			return controller.Result{}, err
		}
		seen <- fmt.Sprintf("%s has %d entries", key, len(cm.Data))
		return controller.Result{}, nil
	}
	c, err := controller.New("configmaps", controller.ReconcilerFunc[string](reconcile),
		controller.Options[string]{Logger: logr.Discard()})
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
	<-watching // the fake loses a delete made between the informer's list and its watch
	_ = client.CoreV1().ConfigMaps("default").Delete(ctx, "settings", metav1.DeleteOptions{})
	fmt.Println(<-seen)

	cancel()
	fmt.Println("Run returned", <-done)
	factory.Shutdown()
	// Output:
	// default/settings has 1 entries
	// default/settings is gone
	// Run returned <nil>
}

// Keys of type types.NamespacedName, as controller-runtime's reconcile.Request
// carries them, instead of "namespace/name" strings.
func ExampleNew_namespacedName() {
	r := controller.ReconcilerFunc[types.NamespacedName](func(ctx context.Context, key types.NamespacedName) (controller.Result, error) {
		fmt.Println("reconciling", key.Namespace, key.Name)
		return controller.Result{}, nil
	})
	c, err := controller.New("pods", r, controller.Options[types.NamespacedName]{Logger: logr.Discard()})
	if err != nil {
		panic(err)
	}
	defer c.Queue().ShutDown()
	// Watch(podInformer, handler.ForObject(handler.ObjectNamespacedName)) would
	// add keys from events; here one is added by hand and processed once.
	c.Queue().Add(types.NamespacedName{Namespace: "default", Name: "web-0"})
	c.ProcessNextReady(context.Background())
	// Output: reconciling default web-0
}

// Reconcile errors are retried with backoff; a TerminalError is not.
func ExampleTerminalError() {
	r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
		return controller.Result{}, controller.TerminalError(fmt.Errorf("%s: spec.replicas must not be negative", key))
	})
	c, err := controller.New("example", r, controller.Options[string]{Logger: logr.Discard()})
	if err != nil {
		panic(err)
	}
	defer c.Queue().ShutDown()
	c.Queue().Add("default/web")
	c.ProcessNextReady(context.Background())
	fmt.Println("retries scheduled:", c.Queue().NumRequeues("default/web"))
	// Output: retries scheduled: 0
}

// Each Reconcile's context carries the attempt's ID, the reconcileID of its
// log lines: a reconciler can pass it on, for example in an event or an
// annotation, to find the lines of the attempt that wrote it.
func ExampleReconcileIDFromContext() {
	r := controller.ReconcilerFunc[string](func(ctx context.Context, key string) (controller.Result, error) {
		id := controller.ReconcileIDFromContext(ctx)
		fmt.Println("reconcile", key, "has an ID:", len(id) == 36)
		return controller.Result{}, nil
	})
	c, err := controller.New("example", r, controller.Options[string]{Logger: logr.Discard()})
	if err != nil {
		panic(err)
	}
	defer c.Queue().ShutDown()
	c.Queue().Add("default/web")
	c.ProcessNextReady(context.Background())
	// Output: reconcile default/web has an ID: true
}

// A reconciler that records its write, so that the controller does not
// reconcile the key again until the informer holds the updated ConfigMap.
func ExampleRecordWrite() {
	client := fake.NewClientset()
	factory := informers.NewSharedInformerFactory(client, 0)
	configMaps := factory.Core().V1().ConfigMaps()

	reconcile := func(ctx context.Context, key string) (controller.Result, error) {
		ns, name, err := cache.SplitMetaNamespaceKey(key)
		if err != nil {
			return controller.Result{}, controller.TerminalError(err)
		}
		cm, err := configMaps.Lister().ConfigMaps(ns).Get(name)
		if apierrors.IsNotFound(err) {
			return controller.Result{}, nil
		}
		if err != nil || cm.Annotations["seen"] == "yes" {
			return controller.Result{}, err
		}
		cm = cm.DeepCopy()
		metav1.SetMetaDataAnnotation(&cm.ObjectMeta, "seen", "yes")
		updated, err := client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
		if err != nil {
			return controller.Result{}, err
		}
		// The informer is the one Watch was given, and the object is the
		// server's answer, with the new resourceVersion.
		controller.RecordWrite(ctx, configMaps.Informer(), updated)
		return controller.Result{}, nil
	}
	c, err := controller.New("annotator", controller.ReconcilerFunc[string](reconcile), controller.Options[string]{})
	if err != nil {
		panic(err)
	}
	if err := c.Watch(configMaps.Informer(), handler.ForObject(handler.ObjectKey)); err != nil {
		panic(err)
	}
	// Then factory.Start and c.Run, as in the package example.
}

// watchStarted returns a channel closed once client serves its first watch
// of resource. client-go's fake clientset delivers to a watch only what
// happens after it starts, and replays no deletion, so a test that deletes
// an object waits for the informer's watch first.
func watchStarted(client *fake.Clientset, resource string) <-chan struct{} {
	started := make(chan struct{})
	var once sync.Once
	client.PrependWatchReactor(resource, func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if w, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = w.ListOptions
		}
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		once.Do(func() { close(started) })
		return true, w, err
	})
	return started
}
