//go:build e2e

package e2e

import (
	"context"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// A watch delivers a namespace's changes in resourceVersion order, so the
// state rebuilt after each event is a state the cluster really went through:
// checking every such state checks "at no moment".

// replicaSetSampler follows the ReplicaSets a Deployment owns and records,
// over every state they pass through, the most pods wanted (sum of
// spec.replicas) and the fewest available (sum of status.availableReplicas).
type replicaSetSampler struct {
	mu           sync.Mutex
	sets         map[types.UID]*appsv1.ReplicaSet
	maxWanted    int32
	minAvailable int32
	states       int // states seen
	bothScaledUp bool
	stop         context.CancelFunc
	done         chan struct{}
	err          error
}

// sampleReplicaSets starts a sampler for the Deployment owned by ownerUID in
// ns. Call finish to stop it and read the results.
func sampleReplicaSets(t *testing.T, client kubernetes.Interface, ns string, ownerUID types.UID) *replicaSetSampler {
	t.Helper()
	list, err := client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := client.AppsV1().ReplicaSets(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &replicaSetSampler{sets: map[types.UID]*appsv1.ReplicaSet{}, minAvailable: 1 << 30, stop: cancel, done: make(chan struct{})}
	owned := func(rs *appsv1.ReplicaSet) bool {
		ref := metav1.GetControllerOf(rs)
		return ref != nil && ref.UID == ownerUID
	}
	for i := range list.Items {
		if rs := &list.Items[i]; owned(rs) {
			s.sets[rs.UID] = rs
		}
	}
	s.record()
	go func() {
		defer close(s.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			rs, ok := ev.Object.(*appsv1.ReplicaSet)
			if !ok {
				if ev.Type == watch.Error && ctx.Err() == nil {
					s.mu.Lock()
					s.err = errorFromWatch(ev)
					s.mu.Unlock()
					return
				}
				continue
			}
			if !owned(rs) {
				continue
			}
			s.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(s.sets, rs.UID)
			} else {
				s.sets[rs.UID] = rs
			}
			s.mu.Unlock()
			s.record()
		}
	}()
	t.Cleanup(s.finish)
	return s
}

func (s *replicaSetSampler) record() {
	s.mu.Lock()
	defer s.mu.Unlock()
	var wanted, available int32
	scaledUp := 0
	for _, rs := range s.sets {
		if rs.Spec.Replicas != nil {
			wanted += *rs.Spec.Replicas
			if *rs.Spec.Replicas > 0 {
				scaledUp++
			}
		}
		available += rs.Status.AvailableReplicas
	}
	s.maxWanted = max(s.maxWanted, wanted)
	s.minAvailable = min(s.minAvailable, available)
	s.bothScaledUp = s.bothScaledUp || scaledUp >= 2
	s.states++
}

// finish stops sampling; it is safe to call more than once.
func (s *replicaSetSampler) finish() {
	s.stop()
	<-s.done
}

// podSampler follows the pods of a namespace and records whether pods of
// two templates (pod-template-hash values) ever existed at once.
type podSampler struct {
	mu      sync.Mutex
	pods    map[types.UID]string // pod → its pod-template-hash
	hashes  map[string]bool      // every hash seen
	overlap string               // a description of the first overlap, if any
	stop    context.CancelFunc
	done    chan struct{}
	err     error
}

func samplePods(t *testing.T, client kubernetes.Interface, ns string) *podSampler {
	t.Helper()
	list, err := client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w, err := client.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	s := &podSampler{pods: map[types.UID]string{}, hashes: map[string]bool{}, stop: cancel, done: make(chan struct{})}
	for i := range list.Items {
		s.apply(watch.Added, &list.Items[i])
	}
	go func() {
		defer close(s.done)
		defer w.Stop()
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				if ev.Type == watch.Error && ctx.Err() == nil {
					s.mu.Lock()
					s.err = errorFromWatch(ev)
					s.mu.Unlock()
					return
				}
				continue
			}
			s.apply(ev.Type, p)
		}
	}()
	t.Cleanup(s.finish)
	return s
}

func (s *podSampler) apply(typ watch.EventType, p *corev1.Pod) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if typ == watch.Deleted {
		delete(s.pods, p.UID)
		return
	}
	hash := p.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	s.pods[p.UID] = hash
	s.hashes[hash] = true
	live := map[string]int{}
	for _, h := range s.pods {
		live[h]++
	}
	if len(live) > 1 && s.overlap == "" {
		s.overlap = formatCounts(live)
	}
}

func (s *podSampler) finish() {
	s.stop()
	<-s.done
}
