package informer_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/handler/informer"
)

func newInformer(lw cache.ListerWatcher) *informer.Informer {
	return informer.New(lw, &corev1.ConfigMap{}, informer.Options{})
}

func TestTransformAppliesBeforeStoreAndHandlers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptLW("1", cm("a", "1"))
		inf := newInformer(lw)
		mark := func(obj any) (any, error) {
			o := obj.(*corev1.ConfigMap)
			o.Labels = map[string]string{"transformed": "yes"}
			return o, nil
		}
		if err := inf.SetTransform(mark); err != nil {
			t.Fatal(err)
		}
		var handled atomic.Int32
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			if obj.(*corev1.ConfigMap).Labels["transformed"] == "yes" {
				handled.Add(1)
			}
		}}); err != nil {
			t.Fatal(err)
		}
		stop := run(inf)
		defer stop()
		w := <-lw.watchers
		w.Add(cm("b", "2"))
		synctest.Wait()

		if got := handled.Load(); got != 2 {
			t.Errorf("handler saw %d transformed adds, want 2", got)
		}
		for _, obj := range inf.GetStore().List() {
			if obj.(*corev1.ConfigMap).Labels["transformed"] != "yes" {
				t.Errorf("stored %s untransformed", describe(obj))
			}
		}
		if err := inf.SetTransform(mark); err == nil {
			t.Error("SetTransform after Run succeeded, want an error")
		}
	})
}

func TestWatchErrorHandlerAndRecovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptLW("1", cm("a", "1"))
		listErr := errors.New("API server unreachable")
		lw.failLists(listErr)
		inf := newInformer(lw)
		var failures atomic.Int32
		if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
			if errors.Is(err, listErr) {
				failures.Add(1)
			}
		}); err != nil {
			t.Fatal(err)
		}
		rec := &recorder{}
		if _, err := inf.AddEventHandler(rec); err != nil {
			t.Fatal(err)
		}
		stop := run(inf)
		defer stop()
		synctest.Wait()
		if failures.Load() == 0 || inf.HasSynced() {
			t.Fatalf("after a failed list: %d errors handled, synced %v; want >0, false", failures.Load(), inf.HasSynced())
		}

		lw.failLists(nil) // the API server is back
		<-lw.watchers     // the next attempt lists and watches
		synctest.Wait()
		if !inf.HasSynced() {
			t.Fatal("not synced after the API server came back")
		}
		if got := rec.take(); len(got) != 1 || got[0] != "add a@1 initial=true" {
			t.Errorf("events = %q, want the initial add of a only", got)
		}
		if got := inf.LastSyncResourceVersion(); got != "1" {
			t.Errorf("LastSyncResourceVersion = %q, want 1", got)
		}
	})
}

func TestRemoveEventHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptLW("1")
		inf := newInformer(lw)
		kept, removed := &recorder{}, &recorder{}
		if _, err := inf.AddEventHandler(kept); err != nil {
			t.Fatal(err)
		}
		reg, err := inf.AddEventHandler(removed)
		if err != nil {
			t.Fatal(err)
		}
		stop := run(inf)
		defer stop()
		w := <-lw.watchers
		w.Add(cm("a", "2"))
		synctest.Wait()
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Fatal(err)
		}
		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Errorf("removing twice: %v, want nil", err)
		}
		w.Add(cm("b", "3"))
		synctest.Wait()

		if got := removed.take(); len(got) != 1 {
			t.Errorf("removed handler saw %q, want only the event before removal", got)
		}
		if got := kept.take(); len(got) != 2 {
			t.Errorf("kept handler saw %q, want both events", got)
		}
		other := newInformer(newScriptLW("1"))
		if err := other.RemoveEventHandler(reg); err == nil {
			t.Error("removing another informer's registration succeeded, want an error")
		}
	})
}

func TestStoppedInformerRefusesHandlersAndRunsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lw := newScriptLW("1", cm("a", "1"))
		inf := newInformer(lw)
		stop := run(inf)
		<-lw.watchers
		synctest.Wait()
		if !inf.GetController().HasSynced() || inf.IsStopped() {
			t.Fatalf("running informer: synced %v stopped %v", inf.GetController().HasSynced(), inf.IsStopped())
		}
		inf.Run(make(chan struct{})) // a second Run returns at once
		stop()

		if !inf.IsStopped() {
			t.Error("IsStopped = false after Run returned")
		}
		if _, err := inf.AddEventHandler(&recorder{}); err == nil {
			t.Error("AddEventHandler on a stopped informer succeeded, want an error")
		}
		if err := inf.AddIndexers(cache.Indexers{"x": cache.MetaNamespaceIndexFunc}); err == nil {
			t.Error("AddIndexers on a stopped informer succeeded, want an error")
		}
	})
}

func TestIndexers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		byName := func(obj any) ([]string, error) { return []string{obj.(*corev1.ConfigMap).Name}, nil }
		lw := newScriptLW("1", cm("a", "1"), cm("b", "1"))
		inf := informer.New(lw, &corev1.ConfigMap{}, informer.Options{Indexers: cache.Indexers{"name": byName}})
		stop := run(inf)
		defer stop()
		<-lw.watchers
		synctest.Wait()

		got, err := inf.GetIndexer().ByIndex("name", "b")
		if err != nil || len(got) != 1 || describe(got[0]) != "b@1" {
			t.Errorf("ByIndex(name, b) = %v, %v; want b@1", got, err)
		}
		inNS, err := inf.GetIndexer().ByIndex(cache.NamespaceIndex, "ns")
		if err != nil || len(inNS) != 2 {
			t.Errorf("ByIndex(namespace, ns) = %d objects, %v; want 2", len(inNS), err)
		}
	})
}
