package informer_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// scriptLW is a ListerWatcher driven by a test: List returns the list the
// test last set, and every Watch hands its watcher to the test.
type scriptLW struct {
	mu       sync.Mutex
	list     []corev1.ConfigMap
	listRV   string
	listErr  error
	watchers chan *watch.FakeWatcher
}

var _ cache.ListerWatcher = (*scriptLW)(nil)

func newScriptLW(rv string, objs ...*corev1.ConfigMap) *scriptLW {
	lw := &scriptLW{watchers: make(chan *watch.FakeWatcher)}
	lw.setList(rv, objs...)
	return lw
}

func (lw *scriptLW) setList(rv string, objs ...*corev1.ConfigMap) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.list = lw.list[:0]
	for _, o := range objs {
		lw.list = append(lw.list, *o.DeepCopy())
	}
	lw.listRV = rv
}

func (lw *scriptLW) failLists(err error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.listErr = err
}

func (lw *scriptLW) List(metav1.ListOptions) (runtime.Object, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.listErr != nil {
		return nil, lw.listErr
	}
	l := &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: lw.listRV}}
	for i := range lw.list {
		l.Items = append(l.Items, *lw.list[i].DeepCopy())
	}
	return l, nil
}

func (lw *scriptLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	w := watch.NewFake()
	lw.watchers <- w
	return w, nil
}

// IsWatchListSemanticsUnSupported keeps reflectors on list-then-watch: the
// script has no streaming list.
func (lw *scriptLW) IsWatchListSemanticsUnSupported() bool { return true }

func cm(name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

// recorder is a handler that writes down every call it gets.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func describe(obj any) string {
	o := obj.(*corev1.ConfigMap)
	return fmt.Sprintf("%s@%s", o.Name, o.ResourceVersion)
}

func (r *recorder) record(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf(format, args...))
}

func (r *recorder) OnAdd(obj any, initial bool) {
	r.record("add %s initial=%v", describe(obj), initial)
}

func (r *recorder) OnUpdate(oldObj, newObj any) {
	r.record("update %s -> %s", describe(oldObj), describe(newObj))
}

func (r *recorder) OnDelete(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		r.record("delete %s (final state unknown, key %s)", describe(t.Obj), t.Key)
		return
	}
	r.record("delete %s", describe(obj))
}

// take returns the calls since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := r.events
	r.events = nil
	return seen
}

// takeSorted is take for a phase whose order is the store's (map) order in
// client-go's informer as in ours.
func (r *recorder) takeSorted() []string {
	seen := r.take()
	slices.Sort(seen)
	return seen
}

// run starts inf in the background and returns a function that stops it
// and waits for Run to return.
func run(inf cache.SharedIndexInformer) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		inf.RunWithContext(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
