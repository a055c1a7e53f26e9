package envtestuser

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
)

// In Full mode a Deployment runs as in a cluster: kcm's deployment and
// replicaset controllers make its pods, the scheduler binds them to kwok
// nodes and kwok makes them Ready. A pod whose image is listed in
// UnpullableImages is scheduled but stays Pending.
func TestDeploymentPodsBecomeReady(t *testing.T) {
	t.Parallel()
	const unpullable = "webserver:404"
	full := envtest.StartForTest(t, envtest.Options{
		Mode:        envtest.Full,
		Controllers: []string{"deployment", "replicaset"},
		// Every component takes the gates: AllAlpha=false is valid everywhere.
		FeatureGates:     map[string]bool{"AllAlpha": false},
		UnpullableImages: []string{unpullable},
	})
	client := full.Client()
	ns := full.Namespace(t)

	// The unpullable pod is bound before the Deployment exists: by the time
	// the Deployment's pods are Ready, kwok would have made it Ready too.
	stalled := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "stalled"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "sidecar", Image: "nginx:1"}, {Name: "web", Image: unpullable}}},
	}
	if _, err := client.CoreV1().Pods(ns).Create(t.Context(), stalled, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods(ns).Get(ctx, stalled.Name, metav1.GetOptions{})
		return err == nil && p.Spec.NodeName != "", err
	}); err != nil {
		t.Fatalf("the pod with an unpullable image was not scheduled: %v", err)
	}

	labels := map[string]string{"app": "web"}
	replicas := int32(2)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
			},
		},
	}
	if _, err := client.AppsV1().Deployments(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		pods, err := client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		last = readyPods(pods.Items, int(replicas))
		return last == nil, nil
	})
	if err != nil {
		t.Fatalf("the Deployment's pods did not become Ready: %v (last: %v)", err, last)
	}
	var got *appsv1.Deployment
	if err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		got, err = client.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && got.Status.ReadyReplicas == replicas, err
	}); err != nil {
		t.Errorf("Deployment status: not %d ready replicas: %v", replicas, err)
	}
	p, err := client.CoreV1().Pods(ns).Get(t.Context(), stalled.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := readyPods([]corev1.Pod{*p}, 1); err == nil {
		t.Errorf("pod %s with image %s became Ready; kwok should leave it Pending", p.Name, unpullable)
	}
}

// readyPods returns nil when pods are n pods bound to a node, Running and
// Ready, else what is missing.
func readyPods(pods []corev1.Pod, n int) error {
	if len(pods) != n {
		return fmt.Errorf("%d pods, want %d", len(pods), n)
	}
	for _, p := range pods {
		ready := false
		for _, c := range p.Status.Conditions {
			ready = ready || c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue
		}
		if p.Spec.NodeName == "" || p.Status.Phase != corev1.PodRunning || !ready {
			return fmt.Errorf("pod %s: node %q, phase %s, ready %v", p.Name, p.Spec.NodeName, p.Status.Phase, ready)
		}
	}
	return nil
}
