package controller_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/controller"
	"github.com/ctrlkit/ctrlkit/controller/controllertest"
	"github.com/ctrlkit/ctrlkit/handler"
)

func TestWatchReconcilesInitialListAndEveryChange(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, configMap("a", "one"), configMap("b", "two"))
		r := &controllertest.Recorder[string]{}
		c := newConfigMapController(t, env, r, controller.Options[string]{})
		env.Start(c)
		if got, want := sorted(r.Keys()), []string{"a/one", "b/two"}; !slices.Equal(got, want) {
			t.Fatalf("initial list reconciled %v, want %v", got, want)
		}

		r.Reset()
		create(t, env, configMap("a", "three"))
		env.Settle()
		cm := configMap("b", "two")
		cm.Data = map[string]string{"k": "v"}
		if _, err := env.Client.CoreV1().ConfigMaps("b").Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		if err := env.Client.CoreV1().ConfigMaps("a").Delete(context.Background(), "one", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		if got, want := r.Keys(), []string{"a/three", "b/two", "a/one"}; !slices.Equal(got, want) {
			t.Fatalf("changes reconciled %v, want %v", got, want)
		}
	})
}

// A watch added to a running controller delivers its informer's initial
// list and its changes; the controller stays synced meanwhile.
func TestWatchWhileRunning(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t, configMap("a", "one"), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "late"}})
		r := &controllertest.Recorder[string]{}
		c := newConfigMapController(t, env, r, controller.Options[string]{})
		env.Start(c)
		r.Reset()

		secrets := env.Informers.Core().V1().Secrets().Informer() // after the factory's Start
		if err := c.Watch(secrets, handler.ForObject(handler.ObjectKey)); err != nil {
			t.Fatalf("Watch while running: %v", err)
		}
		env.Informers.Start(env.Context().Done())
		env.Settle()
		if !c.HasSynced() {
			t.Error("HasSynced false after a Watch while running")
		}
		if got, want := r.Keys(), []string{"s/late"}; !slices.Equal(got, want) {
			t.Fatalf("reconciled %v after the late watch, want %v", got, want)
		}
		r.Reset()
		if _, err := env.Client.CoreV1().Secrets("s").Create(context.Background(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "s", Name: "later"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		env.Settle()
		if got, want := r.Keys(), []string{"s/later"}; !slices.Equal(got, want) {
			t.Fatalf("reconciled %v after a change, want %v", got, want)
		}
		if informers := c.WatchedInformers(); len(informers) != 2 || informers[1] != secrets {
			t.Errorf("WatchedInformers = %v, want the ConfigMaps' and the Secrets'", informers)
		}
	})
}

// handlerOnlyInformer is a custom informer that implements only what a
// handler needs; any other method panics (the embedded interface is nil).
type handlerOnlyInformer struct {
	cache.SharedIndexInformer
	handlers int
}

func (i *handlerOnlyInformer) AddEventHandlerWithOptions(cache.ResourceEventHandler, cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	i.handlers++
	return nil, nil
}

func (i *handlerOnlyInformer) AddEventHandler(h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return i.AddEventHandlerWithOptions(h, cache.HandlerOptions{})
}

// TestWatchAsksACustomInformerOnlyForAHandler: Watch registers its handler
// and reads nothing else of the informer (its store only when a reconcile
// records a write against it).
func TestWatchAsksACustomInformerOnlyForAHandler(t *testing.T) {
	c, err := controller.New("custom", controller.ReconcilerFunc[string](func(context.Context, string) (controller.Result, error) {
		return controller.Result{}, nil
	}), controller.Options[string]{})
	if err != nil {
		t.Fatal(err)
	}
	informer := &handlerOnlyInformer{}
	if err := c.Watch(informer, handler.ForObject(handler.ObjectKey)); err != nil {
		t.Fatal(err)
	}
	if informer.handlers != 1 {
		t.Fatalf("Watch registered %d handlers, want 1", informer.handlers)
	}
}
