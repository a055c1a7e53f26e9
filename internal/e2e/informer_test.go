//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/handler/informer"
)

// configMapEvents records the handler calls an informer makes for the
// ConfigMaps a test made (names starting with "t-").
type configMapEvents struct {
	mu     sync.Mutex
	events []string
}

func (r *configMapEvents) record(obj any, format string, args ...any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	if !strings.HasPrefix(obj.(*corev1.ConfigMap).Name, "t-") {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *configMapEvents) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

func (r *configMapEvents) handler() cache.ResourceEventHandler {
	name := func(obj any) string {
		cm := obj.(*corev1.ConfigMap)
		return cm.Name + "@" + cm.ResourceVersion + "/" + cm.Data["v"]
	}
	return cache.ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) { r.record(obj, "add %s initial=%v", name(obj), initial) },
		UpdateFunc: func(oldObj, newObj any) {
			r.record(newObj, "update %s -> %s", name(oldObj), name(newObj))
		},
		DeleteFunc: func(obj any) { r.record(obj, "delete %s", name(obj)) },
	}
}

// countingLW counts the plain lists a reflector makes.
type countingLW struct {
	cache.ListerWatcher
	lists atomic.Int32
}

func (c *countingLW) List(opts metav1.ListOptions) (runtime.Object, error) {
	c.lists.Add(1)
	return c.ListerWatcher.List(opts)
}

func (c *countingLW) ListWithContext(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	c.lists.Add(1)
	return c.ListerWatcher.(cache.ListerWatcherWithContext).ListWithContext(ctx, opts)
}

func (c *countingLW) WatchWithContext(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return c.ListerWatcher.(cache.ListerWatcherWithContext).WatchWithContext(ctx, opts)
}

// TestLeanInformerMatchesClientGo runs ctrlkit's lean informer and
// client-go's informer side by side on a real API server (with watch-list
// streaming, which client-go enables by default) and requires their
// handlers to see the same calls for the same changes.
func TestLeanInformerMatchesClientGo(t *testing.T) {
	cp := ourCP.get(t)
	client, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ns := newNamespace(t, client)
	configMaps := client.CoreV1().ConfigMaps(ns)
	write := func(name, value string) {
		t.Helper()
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": value}}
		if _, err := configMaps.Update(t.Context(), cm, metav1.UpdateOptions{}); err == nil {
			return
		}
		if _, err := configMaps.Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	remove := func(name string) {
		t.Helper()
		if err := configMaps.Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	write("t-listed", "0")

	factory := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(ns))
	theirs := factory.Core().V1().ConfigMaps().Informer()
	lw := &countingLW{ListerWatcher: informer.ListWatch(configMaps, client)}
	ours := informer.New(lw, &corev1.ConfigMap{}, informer.Options{})
	theirEvents, ourEvents := &configMapEvents{}, &configMapEvents{}
	if _, err := theirs.AddEventHandler(theirEvents.handler()); err != nil {
		t.Fatal(err)
	}
	if _, err := ours.AddEventHandler(ourEvents.handler()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() { theirs.RunWithContext(ctx) })
	wg.Go(func() { ours.RunWithContext(ctx) })
	syncCtx, syncCancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), theirs.HasSynced, ours.HasSynced) {
		t.Fatal("informers did not sync")
	}

	write("t-a", "1")
	write("t-a", "2")
	write("t-b", "1")
	remove("t-a")
	write("t-listed", "1")
	remove("t-b")
	write("t-last", "1")

	done := func(r *configMapEvents) bool {
		seen := r.seen()
		return len(seen) > 0 && strings.HasPrefix(seen[len(seen)-1], "add t-last@")
	}
	eventually(t, 30*time.Second, "both informers to see the last change", func(context.Context) (bool, error) {
		return done(theirEvents) && done(ourEvents), nil
	})
	want, got := theirEvents.seen(), ourEvents.seen()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("handlers saw different events (-client-go +lean):\n%s", diff)
	}
	if n := lw.lists.Load(); n != 0 {
		t.Errorf("the lean informer listed %d times; want 0: its first list should stream through a watch (WatchListClient)", n)
	}
	if len(got) != 8 {
		t.Errorf("lean informer's handler saw %d events, want 8 (1 listed + 7 changes):\n%s", len(got), strings.Join(got, "\n"))
	}
	if cached, _, err := ours.GetStore().GetByKey(ns + "/t-listed"); err != nil || cached.(*corev1.ConfigMap).Data["v"] != "1" {
		t.Errorf("lean informer's store holds %v, %v; want t-listed with v=1", cached, err)
	}
}
