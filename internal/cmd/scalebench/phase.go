package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
)

// tracker records when each Deployment first becomes available on the
// current phase's image. Informer handlers feed it; the benchmark polls it.
type tracker struct {
	mu    sync.Mutex
	image string               // the template image the phase waits for
	done  map[string]time.Time // Deployment namespace/name → when it became available
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
	key := d.Namespace + "/" + d.Name
	if _, seen := t.done[key]; !seen && d.Namespace != quietNamespace && available(d, t.image) {
		t.done[key] = now
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

// spread returns the times, from began, by which half, nine tenths and
// all of the Deployments counted so far became available: whether a
// slower phase is slower throughout or only at its tail.
func (t *tracker) spread(began time.Time) (p50, p90, last time.Duration) {
	t.mu.Lock()
	times := make([]time.Duration, 0, len(t.done))
	for _, at := range t.done {
		times = append(times, at.Sub(began))
	}
	t.mu.Unlock()
	if len(times) == 0 {
		return 0, 0, 0
	}
	slices.Sort(times)
	at := func(q float64) time.Duration { return times[int(q*float64(len(times)-1))] }
	return at(0.5), at(0.9), times[len(times)-1]
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

// runPhase makes write(i) for every Deployment i with createWorkers
// concurrent requests, then waits until the tracker counts all n
// available, or until phaseTimeout after the first write: then it returns
// how far it got.
func runPhase(ctx context.Context, n int, track *tracker, log io.Writer, name string, write func(context.Context, int) error) (phaseResult, error) {
	began := time.Now()
	writeCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(createWorkers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n && writeCtx.Err() == nil; i = int(next.Add(1) - 1) {
				if err := write(writeCtx, i); err != nil {
					stop(err)
				}
			}
		})
	}
	wg.Wait()
	if err := context.Cause(writeCtx); err != nil {
		return phaseResult{}, fmt.Errorf("%s: %w", name, err)
	}
	for lastReport := began; ; {
		count, last := track.progress()
		switch {
		case count == n:
			p50, p90, _ := track.spread(began)
			fmt.Fprintf(log, "scalebench %s: all %d available after %.1fs (half after %.1fs, nine tenths after %.1fs)\n",
				name, n, last.Sub(began).Seconds(), p50.Seconds(), p90.Seconds())
			return phaseResult{elapsed: last.Sub(began), available: n, total: n}, nil
		case time.Since(began) > phaseTimeout:
			fmt.Fprintf(log, "scalebench %s: timed out after %s with %d/%d available\n", name, phaseTimeout, count, n)
			return phaseResult{elapsed: phaseTimeout, available: count, total: n}, nil
		case time.Since(lastReport) >= 10*time.Second:
			lastReport = time.Now()
			fmt.Fprintf(log, "scalebench %s: %d/%d available after %.0fs\n", name, count, n, time.Since(began).Seconds())
		}
		select {
		case <-ctx.Done():
			return phaseResult{}, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// retriable reports whether a failed benchmark write is worth repeating.
func retriable(err error) bool {
	return !apierrors.IsInvalid(err) && !apierrors.IsBadRequest(err) && !apierrors.IsForbidden(err) && !errors.Is(err, context.Canceled)
}

// createDeployment creates a Deployment on imageV1. A create that
// already happened (its response lost, then retried) counts as done.
// Each attempt adds one to sent.
func createDeployment(ctx context.Context, client kubernetes.Interface, namespace, name string, replicas int, sent *atomic.Int64) error {
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(int32(replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "app", Image: imageV1}},
					// kwok deletes pods at once; no grace period to wait out.
					TerminationGracePeriodSeconds: ptr.To[int64](0),
				},
			},
		},
	}
	err := retry.OnError(retry.DefaultBackoff, retriable, func() error {
		sent.Add(1)
		_, err := client.AppsV1().Deployments(namespace).Create(ctx, d, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("create deployment %s: %w", d.Name, err)
	}
	return nil
}

// setImage points the i-th Deployment's container at image with a JSON
// patch, which cannot conflict with the controller's status writes. Each
// attempt adds one to sent.
func setImage(ctx context.Context, client kubernetes.Interface, namespace string, i int, image string, sent *atomic.Int64) error {
	patch := fmt.Appendf(nil, `[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":%q}]`, image)
	err := retry.OnError(retry.DefaultBackoff, retriable, func() error {
		sent.Add(1)
		_, err := client.AppsV1().Deployments(namespace).Patch(ctx, deploymentName(i), types.JSONPatchType, patch, metav1.PatchOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("patch deployment %s: %w", deploymentName(i), err)
	}
	return nil
}
