//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctrlkit/ctrlkit/internal/testutil"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

const rolloutTimeout = 2 * time.Minute

func createDeployment(t *testing.T, client kubernetes.Interface, ns string, spec deploymentSpec) *appsv1.Deployment {
	t.Helper()
	d, err := client.AppsV1().Deployments(ns).Create(t.Context(), spec.build(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create deployment %s: %v", spec.name, err)
	}
	return d
}

func setImage(image string) func(*appsv1.Deployment) {
	return func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = image }
}

// A rolling update never wants more than replicas+maxSurge pods nor has
// fewer than replicas-maxUnavailable available, at any moment.
func TestRollingUpdateStaysWithinSurgeAndUnavailable(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		const replicas, surge, unavailable = 10, 3, 2
		spec := deploymentSpec{name: "rolling", replicas: replicas, image: "app:v1",
			maxSurge: intstr.FromInt32(surge), maxUnavailable: intstr.FromInt32(unavailable)}
		d := createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))

		sampler := sampleReplicaSets(t, client, ns, d.UID)
		updateDeployment(t, client, ns, spec.name, setImage("app:v2"))
		testutil.Eventually(t, rolloutTimeout, "the rollout to v2", rolloutComplete(client, ns, spec.name))
		sampler.finish()

		if sampler.err != nil {
			t.Fatal(sampler.err)
		}
		if sampler.maxWanted > replicas+surge {
			t.Errorf("at one moment %d pods were wanted, more than replicas+maxSurge = %d", sampler.maxWanted, replicas+surge)
		}
		if sampler.minAvailable < replicas-unavailable {
			t.Errorf("at one moment only %d pods were available, fewer than replicas-maxUnavailable = %d", sampler.minAvailable, replicas-unavailable)
		}
		if !sampler.bothScaledUp || sampler.states < 4 {
			t.Errorf("saw %d states, old and new both scaled up: %v; want a rollout in several steps", sampler.states, sampler.bothScaledUp)
		}
		t.Logf("%d states: at most %d pods wanted, at least %d available", sampler.states, sampler.maxWanted, sampler.minAvailable)
		rss, err := ownedReplicaSets(t.Context(), client, ns, spec.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(rss) != 2 {
			t.Fatalf("got %d ReplicaSets, want 2 (old scaled to 0, new)", len(rss))
		}
		for _, rs := range rss {
			want := int32(0)
			if rs.Spec.Template.Spec.Containers[0].Image == "app:v2" {
				want = replicas
			}
			if *rs.Spec.Replicas != want {
				t.Errorf("ReplicaSet %s (%s) has %d replicas, want %d", rs.Name, rs.Spec.Template.Spec.Containers[0].Image, *rs.Spec.Replicas, want)
			}
		}
	})
}

// Recreate removes every old pod before it creates a new one.
func TestRecreateNeverRunsOldAndNewPodsTogether(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "recreate", replicas: 5, image: "app:v1", recreate: true}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))

		sampler := samplePods(t, client, ns)
		updateDeployment(t, client, ns, spec.name, setImage("app:v2"))
		testutil.Eventually(t, rolloutTimeout, "the rollout to v2", rolloutComplete(client, ns, spec.name))
		sampler.finish()

		if sampler.err != nil {
			t.Fatal(sampler.err)
		}
		if sampler.overlap != "" {
			t.Errorf("old and new pods existed at once: %s", sampler.overlap)
		}
		if len(sampler.hashes) != 2 {
			t.Errorf("saw pods of %d templates, want 2 (old and new)", len(sampler.hashes))
		}
	})
}

// A rollout stuck on pods that never become Ready stops at maxSurge and
// maxUnavailable; scaling the Deployment then spreads the new replicas over
// the old and new ReplicaSets in proportion to their sizes.
func TestProportionalScalingOfStuckRollout(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "proportional", replicas: 10, image: "app:v1",
			maxSurge: intstr.FromInt32(3), maxUnavailable: intstr.FromInt32(2)}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) {
			d.Spec.Template.Labels[stuckLabel] = "true"
		})
		testutil.Eventually(t, rolloutTimeout, "the stuck rollout to settle at 8 old / 5 new", replicaSplit(client, ns, spec.name, 8, 5))

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) {
			n := int32(30)
			d.Spec.Replicas = &n
		})
		testutil.Eventually(t, rolloutTimeout, "scaling to 30 to give 20 old / 13 new", replicaSplit(client, ns, spec.name, 20, 13))
	})
}

// replicaSplit waits for the Deployment's old ReplicaSet (without the stuck
// label) and new one (with it) to want oldWant and newWant pods, with the
// Deployment's status caught up.
func replicaSplit(client kubernetes.Interface, ns, name string, oldWant, newWant int32) func(context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if d.Status.ObservedGeneration < d.Generation {
			return false, fmt.Errorf("generation %d not observed yet", d.Generation)
		}
		rss, err := ownedReplicaSets(ctx, client, ns, name)
		if err != nil {
			return false, err
		}
		var oldGot, newGot int32
		for _, rs := range rss {
			if _, stuck := rs.Spec.Template.Labels[stuckLabel]; stuck {
				newGot += *rs.Spec.Replicas
			} else {
				oldGot += *rs.Spec.Replicas
			}
		}
		if oldGot != oldWant || newGot != newWant {
			return false, fmt.Errorf("old %d new %d", oldGot, newGot)
		}
		return true, nil
	}
}

// Pods that never become Ready make the rollout exceed its progress
// deadline: Progressing turns False with reason ProgressDeadlineExceeded.
func TestProgressDeadlineExceeded(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "deadline", replicas: 3, image: "app:v1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0), deadline: 5}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) {
			d.Spec.Template.Labels[stuckLabel] = "true"
		})
		testutil.Eventually(t, rolloutTimeout, "Progressing=False ProgressDeadlineExceeded", func(ctx context.Context) (bool, error) {
			d, err := client.AppsV1().Deployments(ns).Get(ctx, spec.name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentProgressing {
					if c.Status == "False" && c.Reason == "ProgressDeadlineExceeded" {
						return true, nil
					}
					return false, fmt.Errorf("Progressing=%s %s: %s", c.Status, c.Reason, c.Message)
				}
			}
			return false, fmt.Errorf("no Progressing condition")
		})
		// maxUnavailable 0: the old pods all stay.
		d, err := client.AppsV1().Deployments(ns).Get(t.Context(), spec.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Status.AvailableReplicas != 3 {
			t.Errorf("availableReplicas = %d after the deadline, want 3 (maxUnavailable 0)", d.Status.AvailableReplicas)
		}
	})
}

// A paused Deployment does not roll out a template change; resuming it does.
func TestPauseAndResume(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "paused", replicas: 3, image: "app:v1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) { d.Spec.Paused = true })
		updateDeployment(t, client, ns, spec.name, setImage("app:v2"))
		testutil.Eventually(t, rolloutTimeout, "the paused generation to be observed", func(ctx context.Context) (bool, error) {
			d, err := client.AppsV1().Deployments(ns).Get(ctx, spec.name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentProgressing && c.Reason == "DeploymentPaused" && d.Status.ObservedGeneration >= d.Generation {
					return true, nil
				}
			}
			return false, fmt.Errorf("generation %d observed %d, conditions %v", d.Generation, d.Status.ObservedGeneration, d.Status.Conditions)
		})
		rss, err := ownedReplicaSets(t.Context(), client, ns, spec.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(rss) != 1 {
			t.Fatalf("paused deployment has %d ReplicaSets, want 1 (no rollout while paused)", len(rss))
		}

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) { d.Spec.Paused = false })
		testutil.Eventually(t, rolloutTimeout, "the rollout after resume", rolloutComplete(client, ns, spec.name))
		rss, err = ownedReplicaSets(t.Context(), client, ns, spec.name)
		if err != nil {
			t.Fatal(err)
		}
		if len(rss) != 2 {
			t.Fatalf("resumed deployment has %d ReplicaSets, want 2", len(rss))
		}
		for _, rs := range rss {
			if image := rs.Spec.Template.Spec.Containers[0].Image; image == "app:v2" && *rs.Spec.Replicas != 3 {
				t.Errorf("new ReplicaSet %s has %d replicas, want 3", rs.Name, *rs.Spec.Replicas)
			}
		}
	})
}
