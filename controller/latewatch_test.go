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

// lateWatch delivers each event of a watch delay after the server sent it,
// in order: a slow informer, as under a loaded API server.
type lateWatch struct {
	inner watch.Interface
	out   chan watch.Event
	stop  chan struct{}
	once  sync.Once
}

type stampedEvent struct {
	event watch.Event
	due   time.Time
}

func newLateWatch(inner watch.Interface, delay time.Duration) *lateWatch {
	w := &lateWatch{inner: inner, out: make(chan watch.Event), stop: make(chan struct{})}
	stamped := make(chan stampedEvent, 1000)
	go func() {
		defer close(stamped)
		for ev := range inner.ResultChan() {
			select {
			case stamped <- stampedEvent{event: ev, due: time.Now().Add(delay)}:
			case <-w.stop:
				return
			}
		}
	}()
	go func() {
		defer close(w.out)
		for ev := range stamped {
			timer := time.NewTimer(time.Until(ev.due))
			select {
			case <-timer.C:
			case <-w.stop:
				timer.Stop()
				return
			}
			select {
			case w.out <- ev.event:
			case <-w.stop:
				return
			}
		}
	}()
	return w
}

func (w *lateWatch) ResultChan() <-chan watch.Event { return w.out }

func (w *lateWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.inner.Stop()
	})
}

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
	lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			return client.CoreV1().ConfigMaps("").List(ctx, opts)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			w, err := client.CoreV1().ConfigMaps("").Watch(ctx, opts)
			if err != nil {
				return nil, err
			}
			return newLateWatch(w, delay), nil
		},
	}, client)
	informer := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	go func() {
		defer close(stopped)
		informer.RunWithContext(ctx)
	}()
	return env, informer
}
