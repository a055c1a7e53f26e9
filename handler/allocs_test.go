package handler_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlkit/ctrlkit/handler"
	"github.com/ctrlkit/ctrlkit/workqueue"
)

// TestEventToQueueAllocatesOnlyTheKey: an event handled into ctrlkit's
// queue allocates the key string and nothing else (not the slice of keys),
// once the key is queued. Informers call handlers for every event, so each
// allocation there is paid per event.
func TestEventToQueueAllocatesOnlyTheKey(t *testing.T) {
	q := workqueue.New(workqueue.Options[string]{})
	defer q.ShutDown()
	h := handler.ForObject(handler.ObjectKey).EventHandler(q)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm"}}
	h.OnAdd(cm, false) // queue the key: later adds coalesce without allocating
	allocs := testing.AllocsPerRun(100, func() { h.OnUpdate(cm, cm) })
	if allocs != 1 {
		t.Errorf("allocations per event = %v, want 1 (the key string)", allocs)
	}
	if q.Len() != 1 {
		t.Errorf("queue length = %d, want 1", q.Len())
	}
}
