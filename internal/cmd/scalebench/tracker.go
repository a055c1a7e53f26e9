package main

import (
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
)

// tracker records when each Deployment first becomes available on the
// current phase's image. Informer handlers feed it; the benchmark polls it.
type tracker struct {
	mu    sync.Mutex
	image string               // the template image the phase waits for
	done  map[string]time.Time // Deployment name → when it became available
}

func newTracker() *tracker { return &tracker{done: map[string]time.Time{}} }

// startPhase forgets the previous phase and waits for image.
func (t *tracker) startPhase(image string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.image = image
	t.done = map[string]time.Time{}
}

// observe is the informer's add and update handler.
func (t *tracker) observe(obj any) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, seen := t.done[d.Name]; !seen && available(d, t.image) {
		t.done[d.Name] = now
	}
}

// progress returns how many Deployments are available and when the last of
// them became so.
func (t *tracker) progress() (count int, last time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, at := range t.done {
		if at.After(last) {
			last = at
		}
	}
	return len(t.done), last
}

// available reports whether d runs image on every replica, all available,
// with no old replica left, and its controller has seen its latest spec:
// what `kubectl rollout status` waits for.
func available(d *appsv1.Deployment, image string) bool {
	if d.Spec.Replicas == nil || len(d.Spec.Template.Spec.Containers) == 0 {
		return false
	}
	// The image check keeps a cached copy from before the rollout's patch,
	// complete for the old image, from counting.
	if d.Spec.Template.Spec.Containers[0].Image != image {
		return false
	}
	want, s := *d.Spec.Replicas, d.Status
	return s.ObservedGeneration >= d.Generation &&
		s.Replicas == want && s.UpdatedReplicas == want && s.AvailableReplicas == want
}
