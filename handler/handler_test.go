package handler_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

var (
	low    = workqueue.AddOpts{Priority: workqueue.PriorityLow}
	normal = workqueue.AddOpts{Priority: workqueue.PriorityNormal}
)

// Every ctrlkit queue is a handler.Queue.
var _ handler.Queue[string] = workqueue.Interface[string](nil)

func TestForObjectPriorities(t *testing.T) {
	q := &recordingQueue[string]{}
	h := handler.ForObject(handler.ObjectKey).EventHandler(q)

	h.OnAdd(pod("ns", "initial", "1"), true)
	h.OnAdd(pod("ns", "new", "2"), false)
	h.OnUpdate(pod("ns", "changed", "3"), pod("ns", "changed", "4"))
	h.OnUpdate(pod("ns", "resync", "5"), pod("ns", "resync", "5"))
	h.OnDelete(pod("ns", "gone", "6"))
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/tombstone", Obj: pod("ns", "tombstone", "7")})
	h.OnAdd(pod("", "cluster-scoped", "8"), false)

	want := []add[string]{
		{low, []string{"ns/initial"}},
		{normal, []string{"ns/new"}},
		{normal, []string{"ns/changed"}},
		{low, []string{"ns/resync"}},
		{normal, []string{"ns/gone"}},
		{normal, []string{"ns/tombstone"}},
		{normal, []string{"cluster-scoped"}},
	}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

// WithPriority sets live events' priority; the initial list and resyncs
// stay low.
func TestWithPriority(t *testing.T) {
	q := &recordingQueue[string]{}
	high := workqueue.AddOpts{Priority: 10}
	h := handler.ForObject(handler.ObjectKey).WithPriority(func(e handler.Event) int {
		if e.Type == handler.Delete {
			return high.Priority
		}
		return workqueue.PriorityLow
	}).EventHandler(q)

	h.OnAdd(pod("ns", "initial", "1"), true)
	h.OnUpdate(pod("ns", "changed", "3"), pod("ns", "changed", "4"))
	h.OnUpdate(pod("ns", "resync", "5"), pod("ns", "resync", "5"))
	h.OnDelete(pod("ns", "gone", "6"))

	want := []add[string]{
		{low, []string{"ns/initial"}},
		{low, []string{"ns/changed"}},
		{low, []string{"ns/resync"}},
		{high, []string{"ns/gone"}},
	}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

func TestForObjectNamespacedName(t *testing.T) {
	q := &recordingQueue[types.NamespacedName]{}
	handler.ForObject(handler.ObjectNamespacedName).EventHandler(q).OnAdd(pod("ns", "p", "1"), false)
	want := []add[types.NamespacedName]{{normal, []types.NamespacedName{{Namespace: "ns", Name: "p"}}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[types.NamespacedName]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

func TestObjectKeyMatchesClientGo(t *testing.T) {
	for _, obj := range []metav1.Object{pod("ns", "p", ""), pod("", "node-like", "")} {
		want, err := cache.MetaNamespaceKeyFunc(obj)
		if err != nil {
			t.Fatal(err)
		}
		if got := handler.ObjectKey(obj); got != want {
			t.Errorf("ObjectKey = %q, cache.MetaNamespaceKeyFunc = %q", got, want)
		}
	}
}

func TestNonObjectsAreDropped(t *testing.T) {
	q := &recordingQueue[string]{}
	h := handler.ForObject(handler.ObjectKey).EventHandler(q)
	h.OnAdd("not an object", false)
	h.OnUpdate(42, pod("ns", "p", "1"))
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "x", Obj: nil})
	if got := q.take(); len(got) != 0 {
		t.Errorf("non-objects enqueued %v", got)
	}
}

func TestZeroHandlerEnqueuesNothing(t *testing.T) {
	q := &recordingQueue[string]{}
	var h handler.Handler[string]
	h.EventHandler(q).OnAdd(pod("ns", "p", "1"), false)
	if got := q.take(); len(got) != 0 {
		t.Errorf("zero Handler enqueued %v", got)
	}
}

func TestMapMapsOldAndNewOnce(t *testing.T) {
	q := &recordingQueue[string]{}
	// Map each pod to its "app" label and a fixed key, so old and new share one key.
	h := handler.Map(func(obj metav1.Object) []string {
		if app, ok := obj.GetLabels()["app"]; ok {
			return []string{"app/" + app, "all"}
		}
		return nil
	}).EventHandler(q)
	old, cur := pod("ns", "p", "1"), pod("ns", "p", "2")
	old.Labels = map[string]string{"app": "a"}
	cur.Labels = map[string]string{"app": "b"}
	h.OnUpdate(old, cur)
	h.OnAdd(pod("ns", "unlabelled", "3"), false)
	want := []add[string]{{normal, []string{"app/b", "all", "app/a"}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
}

func TestMapEventSeesTheWholeEvent(t *testing.T) {
	q := &recordingQueue[string]{}
	var seen []handler.Event
	h := handler.MapEvent(func(e handler.Event) []string {
		seen = append(seen, e)
		if e.Type == handler.Update {
			return []string{"new:" + e.Object.GetResourceVersion(), "old:" + e.OldObject.GetResourceVersion(), "new:" + e.Object.GetResourceVersion()}
		}
		return []string{e.Type.String()}
	}).EventHandler(q)
	h.OnUpdate(pod("ns", "p", "1"), pod("ns", "p", "2"))
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod("ns", "p", "3")})
	want := []add[string]{{normal, []string{"new:2", "old:1"}}, {normal, []string{"Delete"}}}
	if diff := cmp.Diff(want, q.take(), cmp.AllowUnexported(add[string]{})); diff != "" {
		t.Errorf("adds (-want +got):\n%s", diff)
	}
	if len(seen) != 2 || !seen[1].FinalStateUnknown || seen[1].Object.GetResourceVersion() != "3" {
		t.Errorf("events seen %+v, want the tombstone unwrapped and marked", seen)
	}
}
