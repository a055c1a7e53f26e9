package deployment_test

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	"github.com/ctrlkit/ctrlkit/deployment"
)

// ExampleNewController runs the Deployment controller against a fake
// cluster holding one Deployment, and waits for the ReplicaSet it creates.
// With a real cluster, pass a clientset built from a rest.Config and an
// event recorder from record.NewBroadcaster.
func ExampleNewController() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	client := fake.NewClientset(exampleDeployment())
	factory := informers.NewSharedInformerFactory(client, 0)
	ctrl, _, err := deployment.NewController(client, factory, record.NewFakeRecorder(100), deployment.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}

	created, err := client.AppsV1().ReplicaSets("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer created.Stop()

	factory.Start(ctx.Done())
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()

	for ev := range created.ResultChan() {
		if rs, ok := ev.Object.(*appsv1.ReplicaSet); ok && ev.Type == watch.Added {
			fmt.Printf("created %s with %d replicas\n", rs.Name, *rs.Spec.Replicas)
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		fmt.Println(err)
	}
	factory.Shutdown()
	// Output: created web-74f8f75d46 with 3 replicas
}

// ExamplePodTemplateHash shows the pod-template-hash of a template, the
// suffix of its ReplicaSet's name; a hash collision is resolved by hashing
// again with the Deployment's status.collisionCount. (Both values are
// upstream's: see testdata/hash_vectors.json, "one container".)
func ExamplePodTemplateHash() {
	template := &exampleDeployment().Spec.Template
	fmt.Println(deployment.PodTemplateHash(template, nil))
	fmt.Println(deployment.PodTemplateHash(template, ptr.To[int32](1)))
	// Output:
	// 74f8f75d46
	// 98d446679
}

// ExampleResolveFenceposts resolves the defaults of a RollingUpdate
// Deployment: 25% surge rounds up, 25% unavailable rounds down.
func ExampleResolveFenceposts() {
	surge, unavailable, err := deployment.ResolveFenceposts(ptr.To(intstr.FromString("25%")), ptr.To(intstr.FromString("25%")), 10)
	fmt.Println(surge, unavailable, err)
	// Output: 3 2 <nil>
}

func exampleDeployment() *appsv1.Deployment {
	labels := map[string]string{"app": "web"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "web-uid", Generation: 1},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}},
			},
			Strategy: appsv1.DeploymentStrategy{
				Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{
					MaxSurge:       ptr.To(intstr.FromString("25%")),
					MaxUnavailable: ptr.To(intstr.FromString("25%")),
				},
			},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}
