//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/ctrlkit/ctrlkit/controller/envtest"
	"github.com/ctrlkit/ctrlkit/internal/testutil"
)

const stuckLabel = envtest.StuckLabel

// The control plane runs a Deployment to availability with upstream's
// controller: API server, scheduler, kcm's Deployment and ReplicaSet
// controllers, and kwok's pod stages all work together.
func TestControlPlaneRunsUpstreamDeployment(t *testing.T) {
	cp := upstreamCP.get(t)
	client := cp.Client()
	ns := newNamespace(t, client)

	spec := deploymentSpec{name: "web", replicas: 3, image: "nginx:1", maxSurge: intstr.FromInt32(1), maxUnavailable: intstr.FromInt32(0)}
	if _, err := client.AppsV1().Deployments(ns).Create(t.Context(), spec.build(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, time.Minute, "the deployment to become available", rolloutComplete(client, ns, "web"))

	pods, err := client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 3 {
		t.Fatalf("got %d pods, want 3", len(pods.Items))
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName == "" || !podReady(&p) || p.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s: node %q phase %s ready %v; want bound to a kwok node, Running and Ready", p.Name, p.Spec.NodeName, p.Status.Phase, podReady(&p))
		}
	}
}

// A pod labelled stuck is scheduled but never becomes Ready, while an
// unlabelled one does.
func TestStuckPodNeverBecomesReady(t *testing.T) {
	cp := upstreamCP.get(t)
	client := cp.Client()
	ns := newNamespace(t, client)

	pod := func(name string, stuck bool) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1"}}},
		}
		if stuck {
			p.Labels[stuckLabel] = "true"
		}
		return p
	}
	for _, p := range []*corev1.Pod{pod("stuck", true), pod("fine", false)} {
		if _, err := client.CoreV1().Pods(ns).Create(t.Context(), p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(ctx context.Context, name string) (*corev1.Pod, error) {
		return client.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	}
	testutil.Eventually(t, time.Minute, "the unlabelled pod to become Ready", func(ctx context.Context) (bool, error) {
		p, err := get(ctx, "fine")
		return err == nil && podReady(p), err
	})
	testutil.Eventually(t, time.Minute, "the stuck pod to be scheduled", func(ctx context.Context) (bool, error) {
		p, err := get(ctx, "stuck")
		return err == nil && p.Spec.NodeName != "", err
	})
	// Longer than any pod takes to become Ready here.
	testutil.Consistently(t, 3*(podReadyDelay+podReadyJitter), "the stuck pod staying unready", func(ctx context.Context) error {
		p, err := get(ctx, "stuck")
		if err != nil {
			return err
		}
		if podReady(p) {
			return fmt.Errorf("pod %s became Ready", p.Name)
		}
		return nil
	})
}

// kubectl is built with the Kubernetes version stamped in, so it can talk to
// the server and parse its version.
func TestKubectlTalksToControlPlane(t *testing.T) {
	cp := upstreamCP.get(t)
	out, err := cp.Kubectl(t.Context(), "version", "-o", "json").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl version: %v\n%s", err, out)
	}
	var v struct {
		ClientVersion struct{ GitVersion string } `json:"clientVersion"`
		ServerVersion struct{ GitVersion string } `json:"serverVersion"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("kubectl version output: %v\n%s", err, out)
	}
	want := cp.Binaries().KubernetesVersion()
	if v.ClientVersion.GitVersion != want || v.ServerVersion.GitVersion != want {
		t.Errorf("kubectl reports client %q server %q, want %q for both", v.ClientVersion.GitVersion, v.ServerVersion.GitVersion, want)
	}
	out, err = cp.Kubectl(t.Context(), "get", "nodes", "-o", "name").CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl get nodes: %v\n%s", err, out)
	}
	if got, want := string(out), "node/"+envtest.NodeName(0)+"\nnode/"+envtest.NodeName(1)+"\n"; got != want {
		t.Errorf("kubectl get nodes = %q, want %q", got, want)
	}
}
