package manager

import (
	"context"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic/dynamicinformer"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// Every kind of client-go factory adapts, and keeps its Shutdown.
func TestFactoryAdaptsClientGoFactories(t *testing.T) {
	scheme := runtime.NewScheme()
	for name, f := range map[string]InformerFactory{
		"typed":    Factory(informers.NewSharedInformerFactory(fake.NewClientset(), 0)),
		"dynamic":  Factory(dynamicinformer.NewDynamicSharedInformerFactory(dynamicfake.NewSimpleDynamicClient(scheme), 0)),
		"metadata": Factory(metadatainformer.NewSharedInformerFactory(metadatafake.NewSimpleMetadataClient(scheme), 0)),
	} {
		if _, ok := f.(ShutdownInformerFactory); !ok {
			t.Errorf("%s: adapter lost Shutdown", name)
		}
	}
	if _, ok := Factory[string](syncOnly{}).(ShutdownInformerFactory); ok {
		t.Error("adapter invented a Shutdown the factory does not have")
	}
}

type syncOnly struct{}

func (syncOnly) Start(<-chan struct{})                            {}
func (syncOnly) WaitForCacheSync(<-chan struct{}) map[string]bool { return map[string]bool{"a": true} }

// A typed factory added to a Manager is started before the runnables, read
// by them, and stopped (its goroutines gone, see goleak) when Run returns.
func TestManagerRunsTypedFactory(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}})
		factory := informers.NewSharedInformerFactory(client, 0)
		pods := factory.Core().V1().Pods()
		informer := pods.Informer() // requested before Run, as client-go requires

		m := mustNew(t, Options{Logger: quiet()})
		if err := m.AddInformerFactory(Factory(factory)); err != nil {
			t.Fatal(err)
		}
		seen := make(chan int, 1)
		mustAdd(t, m, RunnableFunc(func(ctx context.Context) error {
			if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
				return nil
			}
			list, err := pods.Lister().List(labels.Everything())
			seen <- len(list)
			<-ctx.Done()
			return err
		}))
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		if n := <-seen; n != 1 {
			t.Errorf("runnable listed %d pods from the cache, want 1", n)
		}
		synctest.Wait()
		if err := m.checkInformersSynced(nil); err != nil {
			t.Errorf("informer-sync check: %v", err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}

type mapFactory map[string]bool

func (mapFactory) Start(<-chan struct{})                              {}
func (f mapFactory) WaitForCacheSync(<-chan struct{}) map[string]bool { return f }

func TestFactorySyncedOnlyIfAllSynced(t *testing.T) {
	for _, tc := range []struct {
		f    mapFactory
		want bool
	}{
		{mapFactory{}, true}, // nothing started: nothing to wait for
		{mapFactory{"a": true, "b": true}, true},
		{mapFactory{"a": true, "b": false}, false},
	} {
		if got := Factory(tc.f).WaitForCacheSync(nil); got != tc.want {
			t.Errorf("WaitForCacheSync with %v = %v, want %v", tc.f, got, tc.want)
		}
	}
}

// An informer a runnable asks for after Run has started the factory is not
// started by the Manager, which starts its factories once; the runnable
// starts it the way client-go supports, calling the factory's Start again,
// and the Manager still shuts the factory down (goleak).
func TestInformerRequestedAfterRunIsStartedByItsRunnable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		client := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "c"}})
		factory := informers.NewSharedInformerFactory(client, 0)
		m := mustNew(t, Options{Logger: quiet()})
		if err := m.AddInformerFactory(Factory(factory)); err != nil {
			t.Fatal(err)
		}
		requested, startIt := make(chan cache.SharedIndexInformer), make(chan struct{})
		listed := make(chan int, 1)
		mustAdd(t, m, RunnableFunc(func(ctx context.Context) error {
			informer := factory.Core().V1().ConfigMaps().Informer() // after the factory's Start
			requested <- informer
			<-startIt
			factory.Start(ctx.Done())
			if cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
				listed <- len(informer.GetStore().List())
			}
			<-ctx.Done()
			return nil
		}))
		ctx, cancel := context.WithCancel(t.Context())
		done := runInBackground(ctx, m)
		informer := <-requested
		synctest.Wait()
		if informer.HasSynced() {
			t.Error("the Manager started an informer requested after Run")
		}
		close(startIt)
		if n := <-listed; n != 1 {
			t.Errorf("the late informer listed %d config maps, want 1", n)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
}
