//go:build e2e

package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/deployment"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

// A Deployment whose selector pins pod-template-hash is accepted by the API
// server; upstream's controller then creates and releases hundreds of
// ReplicaSets (a deliberate difference, so only ours runs here). Ours sets
// ReplicaFailure, emits one Warning event and creates no ReplicaSet. The
// selector is immutable: what a user can do is delete the Deployment and
// create it again with a selector of its own, which then rolls out.
func TestSelectorNamingPodTemplateHashCreatesNoReplicaSet(t *testing.T) {
	cp := ourCP.get(t)
	client := cp.Client()
	ns := newNamespace(t, client)
	startOurController(t, cp, ns)

	spec := deploymentSpec{name: "hot", replicas: 2, image: "app:v1",
		maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
	hot := spec.build()
	hot.Spec.Selector.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = "pinned"
	hot.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] = "pinned"
	if _, err := client.AppsV1().Deployments(ns).Create(t.Context(), hot, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the API server refused the Deployment (the test assumes it accepts it): %v", err)
	}

	testutil.Eventually(t, 30*time.Second, "ReplicaFailure=True "+deployment.ReasonNewReplicaSetUnadoptable, func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, spec.name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := deployment.GetCondition(d.Status, appsv1.DeploymentReplicaFailure)
		return c != nil && c.Status == corev1.ConditionTrue && c.Reason == deployment.ReasonNewReplicaSetUnadoptable, nil
	})

	// Over 30 s: at most one ReplicaSet (none, in fact) and at most one event.
	// A spec change in the middle enqueues the key again.
	window := 30 * time.Second
	changed := time.Now().Add(window / 2)
	testutil.Consistently(t, window, "at most one ReplicaSet and one event", func(ctx context.Context) error {
		if !changed.IsZero() && time.Now().After(changed) {
			updateDeployment(t, client, ns, spec.name, setImage("app:v2"))
			changed = time.Time{}
		}
		rss, err := client.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(rss.Items) > 1 {
			return fmt.Errorf("%d ReplicaSets", len(rss.Items))
		}
		n, err := unadoptableEvents(ctx, client, ns, spec.name)
		if err != nil {
			return err
		}
		if n > 1 {
			return fmt.Errorf("%d %s events", n, deployment.ReasonNewReplicaSetUnadoptable)
		}
		return nil
	})
	if n, err := unadoptableEvents(t.Context(), client, ns, spec.name); err != nil || n != 1 {
		t.Fatalf("%d %s events (%v), want 1", n, deployment.ReasonNewReplicaSetUnadoptable, err)
	}

	// The fix: delete the Deployment and create it again with a selector of its own.
	if err := client.AppsV1().Deployments(ns).Delete(t.Context(), spec.name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 30*time.Second, "the Deployment to go", func(ctx context.Context) (bool, error) {
		_, err := client.AppsV1().Deployments(ns).Get(ctx, spec.name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), err
	})
	createDeployment(t, client, ns, spec)
	testutil.Eventually(t, rolloutTimeout, "the rollout of the re-created Deployment", rolloutComplete(client, ns, spec.name))
}

// unadoptableEvents counts the NewReplicaSetUnadoptable events about the
// Deployment name, repeats included.
func unadoptableEvents(ctx context.Context, client kubernetes.Interface, ns, name string) (int32, error) {
	evs, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fields.Set{
		"involvedObject.kind": "Deployment", "involvedObject.name": name, "reason": deployment.ReasonNewReplicaSetUnadoptable,
	}.String()})
	if err != nil {
		return 0, err
	}
	var n int32
	for _, ev := range evs.Items {
		n += max(ev.Count, 1)
	}
	return n, nil
}
