package handler_test

import (
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlkit/ctrlkit/workqueue"
)

// add is one AddWithOpts call.
type add[K comparable] struct {
	opts workqueue.AddOpts
	keys []K
}

// recordingQueue is a handler.Queue that records adds.
type recordingQueue[K comparable] struct {
	mu   sync.Mutex
	adds []add[K]
}

func (q *recordingQueue[K]) AddWithOpts(o workqueue.AddOpts, keys ...K) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.adds = append(q.adds, add[K]{o, append([]K(nil), keys...)})
}

func (q *recordingQueue[K]) take() []add[K] {
	q.mu.Lock()
	defer q.mu.Unlock()
	a := q.adds
	q.adds = nil
	return a
}

func pod(ns, name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

func deployment(ns, name string, uid types.UID) *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid}}
}

// ownedBy returns a ReplicaSet in ns controlled by a Deployment name/uid.
func ownedBy(ns, rsName, apiVersion, kind, owner string, uid types.UID, rv string) *appsv1.ReplicaSet {
	yes := true
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{
		Namespace: ns, Name: rsName, ResourceVersion: rv,
		OwnerReferences: []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: owner, UID: uid, Controller: &yes}},
	}}
}

// discardQueue is a handler.Queue that drops every add.
type discardQueue[K comparable] struct{}

func (discardQueue[K]) AddWithOpts(workqueue.AddOpts, ...K) {}
