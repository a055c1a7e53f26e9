package controllertest_test

import (
	"sync/atomic"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/ctrlkit/ctrlkit/controller/controllertest"
)

// An informer's watch starts from the resourceVersion of its list; objects
// stored in between are replayed to it, and the bare fake replays the very
// objects it stores. This test stores an object in that gap and lets an
// informer transform edit every object it receives, as
// handler.StripManagedFields does: the store must not see the edit (and,
// under -race, the edit must not race with the store's reads).
func TestWatchersGetTheirOwnCopies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t)
		configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
		var gapFilled atomic.Bool
		env.Client.PrependReactor("list", "configmaps", func(action clienttesting.Action) (bool, runtime.Object, error) {
			if gapFilled.Swap(true) {
				return false, nil, nil
			}
			list, err := env.Client.Tracker().List(configMaps, corev1.SchemeGroupVersion.WithKind("ConfigMap"), action.GetNamespace())
			if err != nil {
				return true, nil, err
			}
			gap := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "gap", Labels: map[string]string{"stored": "yes"}}}
			return true, list, env.Client.Tracker().Create(configMaps, gap, "ns")
		})

		informer := env.Informers.Core().V1().ConfigMaps().Informer()
		if err := informer.SetTransform(func(obj any) (any, error) {
			if cm, ok := obj.(*corev1.ConfigMap); ok {
				cm.Labels["stored"] = "edited by the informer"
			}
			return obj, nil
		}); err != nil {
			t.Fatal(err)
		}
		env.Start()
		if !gapFilled.Load() {
			t.Fatal("the informer never listed")
		}

		cached, ok, err := informer.GetStore().GetByKey("ns/gap")
		if err != nil || !ok {
			t.Fatalf("the informer did not receive the object stored after its list: %v, %v", ok, err)
		}
		if got := cached.(*corev1.ConfigMap).Labels["stored"]; got != "edited by the informer" {
			t.Fatalf("cached label %q: the transform did not run", got)
		}
		stored, err := env.Client.CoreV1().ConfigMaps("ns").Get(env.Context(), "gap", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := stored.Labels["stored"]; got != "yes" {
			t.Errorf("stored label %q: the informer's edit reached the fake's store", got)
		}
	})
}

// A watch stopped with an event nobody read ends its relay: a stopped
// informer leaves no goroutine behind (goleak checks the rest).
func TestStoppedWatchEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		env := controllertest.New(t)
		cms := env.Client.CoreV1().ConfigMaps("ns")
		w, err := cms.Watch(env.Context(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cms.Create(env.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "unread"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		w.Stop()
		w.Stop() // stopping twice is allowed
		synctest.Wait()
		if e, ok := <-w.ResultChan(); ok {
			t.Errorf("stopped watch delivered %v; want its channel closed", e.Type)
		}
	})
}
