package informer_test

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/handler/informer"
)

// scenario drives an informer through every kind of event a watch can bring
// and returns what an early and a late handler saw, phase by phase: the initial list, watch
// adds, updates and deletes (one of an object the informer never had), a
// resync, an expired watch and the relist that finds one object gone, one
// unchanged and one new, and a handler joining after all that.
func scenario(t *testing.T, newInformer func(cache.ListerWatcher) cache.SharedIndexInformer) map[string][]string {
	lw := newScriptLW("2", cm("a", "1"), cm("b", "2"))
	inf := newInformer(lw)
	early := &recorder{}
	if _, err := inf.AddEventHandlerWithResyncPeriod(early, 30*time.Second); err != nil {
		t.Fatal(err)
	}
	stop := run(inf)
	defer stop()

	seen := map[string][]string{}
	w := <-lw.watchers
	synctest.Wait()
	if !inf.HasSynced() {
		t.Fatal("not synced after the first list")
	}
	seen["1 early: initial list"] = early.takeSorted()
	w.Add(cm("c", "3"))
	w.Modify(cm("a", "4"))
	w.Delete(cm("b", "5"))
	w.Delete(cm("never-seen", "6"))
	synctest.Wait()
	seen["2 early: watch"] = early.take()

	time.Sleep(61 * time.Second) // virtual time: one resync
	synctest.Wait()
	seen["3 early: resync"] = early.takeSorted()

	lw.setList("8", cm("a", "4"), cm("d", "7"), cm("e", "8"))
	w.Error(&apierrors.NewResourceExpired("too old resource version").ErrStatus)
	w = <-lw.watchers // after the reflector's backoff and relist
	synctest.Wait()
	seen["4 early: relist"] = early.take()

	late := &recorder{}
	if _, err := inf.AddEventHandlerWithResyncPeriod(late, 0); err != nil {
		t.Fatal(err)
	}
	synctest.Wait()
	seen["5 late: joins"] = late.takeSorted()
	w.Modify(cm("d", "9"))
	synctest.Wait()
	seen["6 early: watch"] = early.take()
	seen["6 late: watch"] = late.take()
	return seen
}

// TestSameEventsAsClientGo runs one scenario through client-go's shared
// informer and through ours, and requires the handlers to see the same
// calls in the same order.
func TestSameEventsAsClientGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		want := scenario(t, func(lw cache.ListerWatcher) cache.SharedIndexInformer {
			return cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, time.Minute, cache.Indexers{})
		})
		got := scenario(t, func(lw cache.ListerWatcher) cache.SharedIndexInformer {
			return informer.New(lw, &corev1.ConfigMap{}, informer.Options{ResyncPeriod: time.Minute})
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("handlers saw different events (-client-go +ours):\n%s", diff)
		}

		// The scenario must have produced every kind of call, or the
		// comparison proves little.
		var all string
		for _, events := range got {
			all += strings.Join(events, "\n") + "\n"
		}
		for _, kind := range []string{
			"add a@1 initial=true", "add c@3 initial=false", "update a@1 -> a@4", "delete b@5",
			"delete never-seen@6", "update c@3 -> c@3", "final state unknown, key ns/c",
			"update a@4 -> a@4", "add d@7 initial=false", "update d@7 -> d@9", "add e@8 initial=true",
		} {
			if !strings.Contains(all, kind) {
				t.Errorf("scenario produced no %q; events:\n%s", kind, all)
			}
		}
	})
}
