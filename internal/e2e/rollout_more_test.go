//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// revisionKey is the annotation holding a ReplicaSet's (and a
// Deployment's) rollout revision.
const revisionKey = "deployment.kubernetes.io/revision"

// A template change in the middle of a rollout rolls over: the ReplicaSet of
// the interrupted rollout is scaled down with the old one, and only the
// newest template keeps replicas.
func TestRolloverScalesDownInterruptedReplicaSet(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "rollover", replicas: 4, image: "app:v1",
			maxSurge: intstr.FromInt32(2), maxUnavailable: intstr.FromInt32(0)}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))

		// v2's pods never become Ready: its rollout cannot finish by itself.
		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "app:v2"
			d.Spec.Template.Labels[stuckLabel] = "true"
		})
		testutil.Eventually(t, rolloutTimeout, "the v2 ReplicaSet to be scaled up", func(ctx context.Context) (bool, error) {
			wanted, err := replicasByImage(ctx, client, ns, spec.name)
			if err != nil {
				return false, err
			}
			if wanted["app:v2"] == 0 {
				return false, fmt.Errorf("replicas by image %v", wanted)
			}
			return true, nil
		})

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Image = "app:v3"
			delete(d.Spec.Template.Labels, stuckLabel)
		})
		testutil.Eventually(t, rolloutTimeout, "the rollout to v3", rolloutComplete(client, ns, spec.name))
		testutil.Eventually(t, rolloutTimeout, "only v3 to keep replicas and pods", func(ctx context.Context) (bool, error) {
			rss, err := ownedReplicaSets(ctx, client, ns, spec.name)
			if err != nil {
				return false, err
			}
			if len(rss) != 3 {
				return false, fmt.Errorf("%d ReplicaSets, want 3 (v1, v2, v3)", len(rss))
			}
			for _, rs := range rss {
				image := rs.Spec.Template.Spec.Containers[0].Image
				want := int32(0)
				if image == "app:v3" {
					want = spec.replicas
				}
				if *rs.Spec.Replicas != want || rs.Status.Replicas != want {
					return false, fmt.Errorf("ReplicaSet %s (%s): spec %d status %d, want %d",
						rs.Name, image, *rs.Spec.Replicas, rs.Status.Replicas, want)
				}
			}
			return true, nil
		})
	})
}

// replicasByImage sums the wanted replicas of the Deployment's ReplicaSets
// by container image.
func replicasByImage(ctx context.Context, client kubernetes.Interface, ns, name string) (map[string]int32, error) {
	rss, err := ownedReplicaSets(ctx, client, ns, name)
	if err != nil {
		return nil, err
	}
	out := map[string]int32{}
	for _, rs := range rss {
		out[rs.Spec.Template.Spec.Containers[0].Image] += *rs.Spec.Replicas
	}
	return out, nil
}

// The legacy rollback annotation brings back revision 1's template: the
// annotation is cleared, a DeploymentRollback event is recorded, and the
// revision-1 ReplicaSet itself is scaled back up under a new revision.
func TestLegacyRollbackAnnotation(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "rollback", replicas: 3, image: "app:v1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))
		first := replicaSetWithImage(t, client, ns, spec.name, "app:v1")
		if first.Annotations[revisionKey] != "1" {
			t.Fatalf("first ReplicaSet has revision %q, want 1", first.Annotations[revisionKey])
		}

		updateDeployment(t, client, ns, spec.name, setImage("app:v2"))
		testutil.Eventually(t, rolloutTimeout, "the rollout to v2", rolloutComplete(client, ns, spec.name))

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) {
			if d.Annotations == nil {
				d.Annotations = map[string]string{}
			}
			d.Annotations[appsv1.DeprecatedRollbackTo] = "1"
		})
		testutil.Eventually(t, rolloutTimeout, "the template of revision 1, annotation cleared", func(ctx context.Context) (bool, error) {
			d, err := client.AppsV1().Deployments(ns).Get(ctx, spec.name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			image := d.Spec.Template.Spec.Containers[0].Image
			rollbackTo, set := d.Annotations[appsv1.DeprecatedRollbackTo]
			if image != "app:v1" || set {
				return false, fmt.Errorf("image %s, rollback annotation %q (set %v)", image, rollbackTo, set)
			}
			if d.Annotations[revisionKey] != "3" {
				return false, fmt.Errorf("Deployment revision %q, want 3", d.Annotations[revisionKey])
			}
			return true, nil
		})
		testutil.Eventually(t, rolloutTimeout, "the rollback rollout", rolloutComplete(client, ns, spec.name))
		testutil.Eventually(t, rolloutTimeout, "a DeploymentRollback event", func(ctx context.Context) (bool, error) {
			events, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			var reasons []string
			for _, ev := range events.Items {
				if ev.InvolvedObject.Kind == "Deployment" && ev.InvolvedObject.Name == spec.name {
					if ev.Reason == "DeploymentRollback" {
						return true, nil
					}
					reasons = append(reasons, ev.Reason)
				}
			}
			return false, fmt.Errorf("events of the Deployment: %v", reasons)
		})

		testutil.Eventually(t, rolloutTimeout, "the revision-1 ReplicaSet to be reused at revision 3", func(ctx context.Context) (bool, error) {
			rss, err := ownedReplicaSets(ctx, client, ns, spec.name)
			if err != nil {
				return false, err
			}
			if len(rss) != 2 {
				return false, fmt.Errorf("%d ReplicaSets, want 2 (no new one for the rollback)", len(rss))
			}
			for _, rs := range rss {
				if rs.Spec.Template.Spec.Containers[0].Image != "app:v1" {
					if *rs.Spec.Replicas != 0 {
						return false, fmt.Errorf("v2 ReplicaSet %s still wants %d replicas", rs.Name, *rs.Spec.Replicas)
					}
					continue
				}
				if rs.UID != first.UID || rs.Name != first.Name {
					return false, fmt.Errorf("v1 ReplicaSet is %s/%s, want the first one %s/%s", rs.Name, rs.UID, first.Name, first.UID)
				}
				if rs.Annotations[revisionKey] != "3" || *rs.Spec.Replicas != spec.replicas {
					return false, fmt.Errorf("v1 ReplicaSet has revision %q and %d replicas, want 3 and %d",
						rs.Annotations[revisionKey], *rs.Spec.Replicas, spec.replicas)
				}
			}
			return true, nil
		})
	})
}

// replicaSetWithImage returns the Deployment's one ReplicaSet running image.
func replicaSetWithImage(t *testing.T, client kubernetes.Interface, ns, name, image string) *appsv1.ReplicaSet {
	t.Helper()
	rss, err := ownedReplicaSets(t.Context(), client, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	var found *appsv1.ReplicaSet
	for _, rs := range rss {
		if rs.Spec.Template.Spec.Containers[0].Image == image {
			if found != nil {
				t.Fatalf("two ReplicaSets run %s: %s and %s", image, found.Name, rs.Name)
			}
			found = rs
		}
	}
	if found == nil {
		t.Fatalf("no ReplicaSet of %s runs %s", name, image)
	}
	return found
}

// revisionHistoryLimit bounds the old ReplicaSets kept: with 1, three
// rollouts leave the current ReplicaSet and the newest old one.
func TestRevisionHistoryLimit(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "history", replicas: 2, image: "app:v1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
		d := spec.build()
		limit := int32(1)
		d.Spec.RevisionHistoryLimit = &limit
		if _, err := client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create deployment: %v", err)
		}
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))
		for _, image := range []string{"app:v2", "app:v3", "app:v4"} {
			updateDeployment(t, client, ns, spec.name, setImage(image))
			testutil.Eventually(t, rolloutTimeout, "the rollout to "+image, rolloutComplete(client, ns, spec.name))
		}
		testutil.Eventually(t, rolloutTimeout, "old ReplicaSets beyond the limit to be deleted", func(ctx context.Context) (bool, error) {
			list, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			var images []string
			for _, rs := range list.Items {
				if rs.DeletionTimestamp == nil {
					images = append(images, rs.Spec.Template.Spec.Containers[0].Image)
				}
			}
			slices.Sort(images)
			if !slices.Equal(images, []string{"app:v3", "app:v4"}) {
				return false, fmt.Errorf("ReplicaSets of images %v, want [app:v3 app:v4]", images)
			}
			return true, nil
		})
	})
}

// Deleting a Deployment with the Orphan policy leaves its ReplicaSet
// running without owner; a Deployment of the same selector and template
// adopts it, keeping its pods.
func TestOrphanedReplicaSetIsAdopted(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "orphan", replicas: 3, image: "app:v1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))
		rs := replicaSetWithImage(t, client, ns, spec.name, "app:v1")
		pods := podUIDs(t, client, ns)
		if len(pods) != int(spec.replicas) {
			t.Fatalf("%d pods before orphaning, want %d", len(pods), spec.replicas)
		}

		orphan := metav1.DeletePropagationOrphan
		if err := client.AppsV1().Deployments(ns).Delete(t.Context(), spec.name, metav1.DeleteOptions{PropagationPolicy: &orphan}); err != nil {
			t.Fatalf("delete deployment: %v", err)
		}
		testutil.Eventually(t, rolloutTimeout, "the Deployment gone and its ReplicaSet orphaned", func(ctx context.Context) (bool, error) {
			if _, err := client.AppsV1().Deployments(ns).Get(ctx, spec.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return false, fmt.Errorf("deployment still there (get: %v)", err)
			}
			got, err := client.AppsV1().ReplicaSets(ns).Get(ctx, rs.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if len(got.OwnerReferences) != 0 {
				return false, fmt.Errorf("ReplicaSet still has owners %v", got.OwnerReferences)
			}
			return true, nil
		})

		d := createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the new Deployment to adopt the ReplicaSet", func(ctx context.Context) (bool, error) {
			got, err := client.AppsV1().ReplicaSets(ns).Get(ctx, rs.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			ref := metav1.GetControllerOf(got)
			if ref == nil || ref.UID != d.UID {
				return false, fmt.Errorf("ReplicaSet controller is %v, want the new Deployment %s", ref, d.UID)
			}
			return true, nil
		})
		testutil.Eventually(t, rolloutTimeout, "the re-created Deployment's rollout", rolloutComplete(client, ns, spec.name))
		expectOnlyReplicaSet(t, client, ns, rs.UID)
		if got := podUIDs(t, client, ns); !maps.Equal(got, pods) {
			t.Errorf("pods changed with the adoption: before %v, after %v", slices.Collect(maps.Keys(pods)), slices.Collect(maps.Keys(got)))
		}
	})
}

// podUIDs returns the UIDs of the namespace's pods not being deleted.
func podUIDs(t *testing.T, client kubernetes.Interface, ns string) map[types.UID]bool {
	t.Helper()
	list, err := client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[types.UID]bool{}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out[p.UID] = true
		}
	}
	return out
}

// expectOnlyReplicaSet checks that the namespace holds exactly one
// ReplicaSet, the one of uid.
func expectOnlyReplicaSet(t *testing.T, client kubernetes.Interface, ns string, uid types.UID) {
	t.Helper()
	list, err := client.AppsV1().ReplicaSets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].UID != uid {
		names := make([]string, len(list.Items))
		for i, rs := range list.Items {
			names[i] = rs.Name + "/" + string(rs.UID)
		}
		t.Errorf("ReplicaSets %v, want only the one of UID %s", names, uid)
	}
}

// The scale subresource resizes a Deployment like an edit of
// spec.replicas does.
func TestScaleSubresource(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "scale", replicas: 2, image: "app:v1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
		createDeployment(t, client, ns, spec)
		testutil.Eventually(t, rolloutTimeout, "the first rollout", rolloutComplete(client, ns, spec.name))
		for _, size := range []int32{5, 1} {
			scaleDeployment(t, client, ns, spec.name, size)
			testutil.Eventually(t, rolloutTimeout, fmt.Sprintf("%d replicas", size), func(ctx context.Context) (bool, error) {
				if ok, err := rolloutComplete(client, ns, spec.name)(ctx); !ok {
					return false, err
				}
				scale, err := client.AppsV1().Deployments(ns).GetScale(ctx, spec.name, metav1.GetOptions{})
				if err != nil {
					return false, err
				}
				if scale.Spec.Replicas != size || scale.Status.Replicas != size {
					return false, fmt.Errorf("scale spec %d status %d", scale.Spec.Replicas, scale.Status.Replicas)
				}
				rs := replicaSetWithImage(t, client, ns, spec.name, "app:v1")
				if *rs.Spec.Replicas != size || rs.Status.ReadyReplicas != size {
					return false, fmt.Errorf("ReplicaSet wants %d, has %d ready", *rs.Spec.Replicas, rs.Status.ReadyReplicas)
				}
				return true, nil
			})
		}
	})
}

// scaleDeployment sets the Deployment's size through the scale
// subresource, retrying on conflicts with the controller's writes.
func scaleDeployment(t *testing.T, client kubernetes.Interface, ns, name string, size int32) {
	t.Helper()
	for {
		scale, err := client.AppsV1().Deployments(ns).GetScale(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get scale of %s: %v", name, err)
		}
		scale.Spec.Replicas = size
		_, err = client.AppsV1().Deployments(ns).UpdateScale(t.Context(), name, scale, metav1.UpdateOptions{})
		if err == nil {
			return
		}
		if !apierrors.IsConflict(err) {
			t.Fatalf("update scale of %s: %v", name, err)
		}
	}
}

// A Deployment whose ReplicaSet was made the way kube-controller-manager
// makes it is taken over as it is: the controller keeps that ReplicaSet,
// creates none, restarts no pod and reports the rollout complete. The
// Deployment is paused while its world is built, so that neither controller
// makes a ReplicaSet of its own first (a paused Deployment gets none).
func TestTakeoverOfUpstreamStyleReplicaSet(t *testing.T) {
	forEachController(t, func(t *testing.T, client kubernetes.Interface, ns string) {
		spec := deploymentSpec{name: "takeover", replicas: 3, image: "app:v1",
			maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
		d := spec.build()
		d.Spec.Paused = true
		d, err := client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create deployment: %v", err)
		}
		rs := createUpstreamStyleReplicaSet(t, client, d)
		pods := waitReplicaSetReady(t, client, ns, rs.Name, spec.replicas)

		updateDeployment(t, client, ns, spec.name, func(d *appsv1.Deployment) { d.Spec.Paused = false })
		checkTakenOver(t, client, ns, spec.name, rs, pods)
	})
}

// The plain hand-over: kube-controller-manager's Deployment controller
// rolled a Deployment out, then stopped; ours starts only now. The
// ReplicaSet is the one upstream made on its own control plane, copied
// field for field (owner reference re-pointed) to a control plane without
// upstream's controller.
func TestTakeoverFromUpstreamController(t *testing.T) {
	spec := deploymentSpec{name: "handover", replicas: 3, image: "app:v1",
		maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}

	// Upstream's world.
	upClient := upstreamCP.get(t).Client()
	upNS := newNamespace(t, upClient)
	createDeployment(t, upClient, upNS, spec)
	testutil.Eventually(t, rolloutTimeout, "upstream's rollout", rolloutComplete(upClient, upNS, spec.name))
	upRS := replicaSetWithImage(t, upClient, upNS, spec.name, spec.image)

	// The same objects where no Deployment controller runs yet.
	cp := ourCP.get(t)
	client := cp.Client()
	ns := newNamespace(t, client)
	d := createDeployment(t, client, ns, spec)
	if want := spec.name + "-" + deployment.PodTemplateHash(&d.Spec.Template, nil); upRS.Name != want {
		t.Fatalf("upstream named its ReplicaSet %s, deployment.PodTemplateHash gives %s", upRS.Name, want)
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:            upRS.Name,
			Labels:          upRS.Labels,
			Annotations:     upRS.Annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: upRS.Spec,
	}
	rs, err := client.AppsV1().ReplicaSets(ns).Create(t.Context(), rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create ReplicaSet: %v", err)
	}
	pods := waitReplicaSetReady(t, client, ns, rs.Name, spec.replicas)

	startOurController(t, cp, ns)
	checkTakenOver(t, client, ns, spec.name, rs, pods)
}

// createUpstreamStyleReplicaSet creates the first ReplicaSet of d as
// kube-controller-manager would: named after the template hash, which
// also labels and selects its pods, with revision 1 and the replica
// annotations, controlled by d.
func createUpstreamStyleReplicaSet(t *testing.T, client kubernetes.Interface, d *appsv1.Deployment) *appsv1.ReplicaSet {
	t.Helper()
	hash := deployment.PodTemplateHash(&d.Spec.Template, nil)
	template := *d.Spec.Template.DeepCopy()
	template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	selector := d.Spec.Selector.DeepCopy()
	selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
	surge, err := intstr.GetScaledValueFromIntOrPercent(d.Spec.Strategy.RollingUpdate.MaxSurge, int(*d.Spec.Replicas), true)
	if err != nil {
		t.Fatal(err)
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name:   d.Name + "-" + hash,
			Labels: maps.Clone(template.Labels),
			Annotations: map[string]string{
				revisionKey: "1",
				"deployment.kubernetes.io/desired-replicas": strconv.Itoa(int(*d.Spec.Replicas)),
				"deployment.kubernetes.io/max-replicas":     strconv.Itoa(int(*d.Spec.Replicas) + surge),
			},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))},
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        d.Spec.Replicas,
			MinReadySeconds: d.Spec.MinReadySeconds,
			Selector:        selector,
			Template:        template,
		},
	}
	rs, err = client.AppsV1().ReplicaSets(d.Namespace).Create(t.Context(), rs, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create ReplicaSet: %v", err)
	}
	return rs
}

// waitReplicaSetReady waits for every pod of the ReplicaSet to be Ready and
// returns the namespace's pod UIDs.
func waitReplicaSetReady(t *testing.T, client kubernetes.Interface, ns, name string, replicas int32) map[types.UID]bool {
	t.Helper()
	testutil.Eventually(t, rolloutTimeout, "the ReplicaSet's pods to be ready", func(ctx context.Context) (bool, error) {
		rs, err := client.AppsV1().ReplicaSets(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if rs.Status.ReadyReplicas != replicas || rs.Status.Replicas != replicas {
			return false, fmt.Errorf("%d replicas, %d ready, want %d", rs.Status.Replicas, rs.Status.ReadyReplicas, replicas)
		}
		return true, nil
	})
	pods := podUIDs(t, client, ns)
	if len(pods) != int(replicas) {
		t.Fatalf("%d pods, want %d", len(pods), replicas)
	}
	return pods
}

// checkTakenOver waits for the Deployment to be complete and checks that
// it kept rs as it was: same ReplicaSet, revision 1, no other one, the
// same pods.
func checkTakenOver(t *testing.T, client kubernetes.Interface, ns, name string, rs *appsv1.ReplicaSet, pods map[types.UID]bool) {
	t.Helper()
	testutil.Eventually(t, rolloutTimeout, "the taken-over rollout to be complete", func(ctx context.Context) (bool, error) {
		if ok, err := rolloutComplete(client, ns, name)(ctx); !ok {
			return false, err
		}
		d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if c := deploymentCondition(d, appsv1.DeploymentProgressing); c == nil || c.Reason != "NewReplicaSetAvailable" {
			return false, fmt.Errorf("Progressing condition %+v, want reason NewReplicaSetAvailable", c)
		}
		if c := deploymentCondition(d, appsv1.DeploymentAvailable); c == nil || c.Status != corev1.ConditionTrue {
			return false, fmt.Errorf("Available condition %+v, want True", c)
		}
		if d.Annotations[revisionKey] != "1" {
			return false, fmt.Errorf("Deployment revision %q, want 1", d.Annotations[revisionKey])
		}
		return true, nil
	})
	expectOnlyReplicaSet(t, client, ns, rs.UID)
	got, err := client.AppsV1().ReplicaSets(ns).Get(t.Context(), rs.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations[revisionKey] != "1" || *got.Spec.Replicas != *rs.Spec.Replicas {
		t.Errorf("ReplicaSet has revision %q and %d replicas, want 1 and %d", got.Annotations[revisionKey], *got.Spec.Replicas, *rs.Spec.Replicas)
	}
	if ref := metav1.GetControllerOf(got); ref == nil || ref.UID != rs.OwnerReferences[0].UID {
		t.Errorf("ReplicaSet controller is %v, want the Deployment %s", ref, rs.OwnerReferences[0].UID)
	}
	if now := podUIDs(t, client, ns); !maps.Equal(now, pods) {
		t.Errorf("pods changed with the takeover: before %v, after %v", slices.Collect(maps.Keys(pods)), slices.Collect(maps.Keys(now)))
	}
}

func deploymentCondition(d *appsv1.Deployment, typ appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == typ {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}
