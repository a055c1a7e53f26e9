package controller_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// newLateEnv returns an Env whose cluster holds objects, and a ConfigMap
// informer on it, already running, whose watch events arrive delay late.
// The informer stops after the env's controllers.
func newLateEnv(t *testing.T, delay time.Duration, objects ...runtime.Object) (*controllertest.Env, cache.SharedIndexInformer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	t.Cleanup(func() { cancel(); <-stopped }) // registered first: runs last
	env := controllertest.New(t, objects...)
	client := env.Client
	watching := make(chan struct{})
	var once sync.Once
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().ConfigMaps("").List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := client.CoreV1().ConfigMaps("").Watch(ctx, opts)
			if err != nil {
				return nil, err
			}
			once.Do(func() { close(watching) })
			return controllertest.LateWatch(w, delay), nil
		},
	}, client)
	informer := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	go func() {
		defer close(stopped)
		informer.RunWithContext(ctx)
	}()
	// The fake clientset delivers to a watch only what happens after it
	// starts: a reconcile's delete made between the informer's list and its
	// watch would never reach the cache.
	<-watching
	return env, informer
}
