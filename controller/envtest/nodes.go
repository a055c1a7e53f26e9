package envtest

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/envtest/internal/kwokstages"
)

// StuckLabel is a pod label: a pod that carries it, with any value, is
// scheduled but stays Pending and never becomes Ready. Put it on a
// Deployment's pod template to make a rollout stall, e.g. to exceed its
// progress deadline.
const StuckLabel = kwokstages.StuckLabel

// kwokNodeAnnotation marks the nodes kwok manages.
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// NodeName returns the name of the i-th kwok node, counting from 0.
func NodeName(i int) string { return fmt.Sprintf("kwok-node-%d", i) }

// createNodes registers n fake nodes, roomy enough for any test, as a
// kubelet would; kwok then reports them Ready.
func createNodes(ctx context.Context, client kubernetes.Interface, n int, kubeVersion string) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("64"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("1000"),
	}
	for i := range n {
		name := NodeName(i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{
				Name:        name,
				Annotations: map[string]string{kwokNodeAnnotation: "fake"},
				Labels: map[string]string{
					"kubernetes.io/hostname": name,
					"kubernetes.io/os":       "linux",
					"type":                   "kwok",
				},
			},
			Status: corev1.NodeStatus{
				Capacity:    capacity,
				Allocatable: capacity,
				Phase:       corev1.NodeRunning,
				NodeInfo:    corev1.NodeSystemInfo{KubeletVersion: kubeVersion, OperatingSystem: "linux", Architecture: "amd64"},
			},
		}
		if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create node %s: %w", name, err)
		}
	}
	return nil
}

// nodesReady checks that n nodes are Ready and free of the taints that keep
// pods off a node that is not (yet) ready.
func nodesReady(client kubernetes.Interface, n int) func(context.Context) error {
	return func(ctx context.Context) error {
		for i := range n {
			node, err := client.CoreV1().Nodes().Get(ctx, NodeName(i), metav1.GetOptions{})
			if err != nil {
				return err
			}
			ready := false
			for _, c := range node.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					ready = true
				}
			}
			if !ready {
				return fmt.Errorf("node %s is not Ready", node.Name)
			}
			for _, t := range node.Spec.Taints {
				if t.Key == corev1.TaintNodeNotReady || t.Key == corev1.TaintNodeUnreachable {
					return fmt.Errorf("node %s still has taint %s", node.Name, t.Key)
				}
			}
		}
		return nil
	}
}
