package deployment_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	appslisters "k8s.io/client-go/listers/apps/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/deployment"
)

// Example runs one pass over a new Deployment, with a fake clientset and
// caches filled by hand, and prints the ReplicaSet it created.
func Example() {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "web-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType},
		},
	}

	client := fake.NewClientset(d)
	deployments := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	replicaSets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	pods := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{deployment.PodControllerIndexName: deployment.PodControllerIndex})
	_ = deployments.Add(d)
	recorder := record.NewFakeRecorder(10)

	r, err := deployment.New(deployment.Config{
		Client:      client,
		Deployments: appslisters.NewDeploymentLister(deployments),
		ReplicaSets: appslisters.NewReplicaSetLister(replicaSets),
		Pods:        pods,
		Recorder:    recorder,
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	ctx := context.Background()
	if _, err := r.Reconcile(ctx, "default/web"); err != nil {
		fmt.Println(err)
		return
	}

	rss, _ := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{})
	for _, rs := range rss.Items {
		fmt.Printf("%s: %d replicas, revision %s, pod-template-hash %s\n", rs.Name, *rs.Spec.Replicas,
			rs.Annotations[deployment.RevisionAnnotation], rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey])
	}
	fmt.Println(<-recorder.Events)
	// Output:
	// web-74f8f75d46: 3 replicas, revision 1, pod-template-hash 74f8f75d46
	// Normal ScalingReplicaSet Scaled up replica set web-74f8f75d46 from 0 to 3
}
