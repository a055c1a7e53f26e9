package ring_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"

	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// relistBackoff is the least a reflector waits before it lists again
// after its watch ended.
const relistBackoff = 800 * time.Millisecond

// When the ring's target changes, the informer's cache follows at once,
// not after the reflector's relist backoff: it takes in what the member
// gained and drops what it lost, its handlers see the drops as
// deletions, and its watch goes on, so that writes in the kept range
// keep arriving. The source sets resourceVersions, as an API server
// does.
func TestInformerFollowsARangeChangeWithoutRelisting(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		source, namespaces, half := configMapSource(t)

		client := fake.NewClientset() // the ring's Leases
		a := newRing(t, client, "a")
		m, leave := runMembers(t, client, a, newRing(t, client, "b"))
		defer source.Shutdown()
		defer m.stop()
		informer := ring.Informer(m.factory, &corev1.ConfigMap{}, cache.ToListerWatcherWithContext(source), a, ring.Namespaced)
		var deletes atomic.Int32
		if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{DeleteFunc: func(any) { deletes.Add(1) }}); err != nil {
			t.Fatal(err)
		}
		m.factory.Start(m.ctx.Done())
		testutil.Eventually(t, time.Minute, "a's cache to hold its half", testutil.True(func() bool {
			return informer.HasSynced() && slices.Equal(cachedNamespaces(informer.GetStore()), half)
		}))

		// b leaves: a gains the other half.
		_, changed := a.Target()
		leave[1]()
		<-changed
		moved := time.Now()
		testutil.Eventually(t, time.Minute, "a's cache to hold everything", testutil.True(func() bool {
			return slices.Equal(cachedNamespaces(informer.GetStore()), namespaces)
		}))
		if took := time.Since(moved); took >= relistBackoff {
			t.Errorf("the cache took %s to hold the gained range, want less than the reflector's relist backoff (%s)", took, relistBackoff)
		}

		// Writes keep arriving on the moved watch.
		source.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team-12", Name: "cm"}})
		testutil.Eventually(t, time.Minute, "an object written after the move to arrive", testutil.True(func() bool {
			_, exists, _ := informer.GetStore().GetByKey("team-12/cm")
			return exists
		}))

		// b joins again: a loses a half, and drops it at once.
		m.run(newRing(t, client, "b"))
		_, changed = a.Target()
		<-changed
		moved = time.Now()
		target, _ := a.Target()
		var kept []string
		for _, ns := range append(slices.Clone(namespaces), "team-12") {
			if target.Contains(ring.KeyHash(ns, "")) {
				kept = append(kept, ns)
			}
		}
		slices.Sort(kept)
		testutil.Eventually(t, time.Minute, "a's cache to hold only its new target", testutil.True(func() bool {
			return slices.Equal(cachedNamespaces(informer.GetStore()), kept)
		}))
		if took := time.Since(moved); took >= relistBackoff {
			t.Errorf("the cache took %s to drop the lost range, want less than the reflector's relist backoff (%s)", took, relistBackoff)
		}
		if got, want := int(deletes.Load()), len(namespaces)+1-len(kept); got != want {
			t.Errorf("the handler saw %d deletions, want one per object of the lost range (%d)", got, want)
		}
	})
}

// A move whose list fails (the API server went away) loses nothing: the
// watch ends, the reflector lists again, with its backoff, until the
// server answers, and the cache then holds the new range.
func TestInformerMoveSurvivesAFailedList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		source, namespaces, half := configMapSource(t)
		lists := &failingLists{ListerWatcherWithContext: cache.ToListerWatcherWithContext(source)}
		client := fake.NewClientset()
		a := newRing(t, client, "a")
		m, leave := runMembers(t, client, a, newRing(t, client, "b"))
		defer source.Shutdown()
		defer m.stop()
		informer := ring.Informer(m.factory, &corev1.ConfigMap{}, lists, a, ring.Namespaced)
		m.factory.Start(m.ctx.Done())
		testutil.Eventually(t, time.Minute, "a's cache to hold its half", testutil.True(func() bool {
			return informer.HasSynced() && slices.Equal(cachedNamespaces(informer.GetStore()), half)
		}))

		lists.failing.Store(true)
		leave[1]()
		testutil.Eventually(t, time.Minute, "a list of the new range to fail", testutil.True(func() bool { return lists.failed.Load() > 0 }))
		if got := cachedNamespaces(informer.GetStore()); !slices.Equal(got, half) {
			t.Errorf("while lists fail, a's cache holds %v, want its old half %v", got, half)
		}
		lists.failing.Store(false)
		testutil.Eventually(t, time.Minute, "a's cache to hold everything once lists succeed", testutil.True(func() bool {
			return slices.Equal(cachedNamespaces(informer.GetStore()), namespaces)
		}))
	})
}

// configMapSource is a source of a ConfigMap in each of 12 namespaces
// named team-N (sorted), and those of the first of two equal ranges.
func configMapSource(t *testing.T) (source *fcache.FakeControllerSource, namespaces, half []string) {
	t.Helper()
	source = fcache.NewFakeControllerSource()
	for i := range 12 {
		ns := fmt.Sprintf("team-%d", i)
		namespaces = append(namespaces, ns)
		source.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}})
	}
	slices.Sort(namespaces)
	half = namespacesIn(namespaces, ring.Assign(2)[0])
	if len(half) == 0 || len(half) == len(namespaces) {
		t.Fatalf("the test's namespaces all hash to one half (%d of %d): pick others", len(half), len(namespaces))
	}
	return source, namespaces, half
}

// failingLists fails every list while failing is set, as an API server
// that went away would.
type failingLists struct {
	cache.ListerWatcherWithContext
	failing atomic.Bool
	failed  atomic.Int32
}

func (l *failingLists) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	if l.failing.Load() {
		l.failed.Add(1)
		return nil, errors.New("connection refused")
	}
	return l.ListerWatcherWithContext.ListWithContext(ctx, opts)
}
