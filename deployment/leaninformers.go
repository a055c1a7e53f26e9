package deployment

import (
	"errors"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/handler/informer"
)

// UseLeanInformers makes factory's Deployment, ReplicaSet and Pod informers
// lean ones (package handler/informer), which call their handlers on the
// reflector's goroutine instead of through client-go's per-handler buffers.
// NewController's handlers only enqueue keys, which is what that needs;
// give these informers no handler that does slow work.
//
// namespace must be the factory's own (informers.WithNamespace; "" for all
// namespaces), since the factory does not pass it on. Call this before
// NewController and before anything else asks factory for these informers.
func UseLeanInformers(factory informers.SharedInformerFactory, namespace string) error {
	_, errD := informer.InFactory(factory, &appsv1.Deployment{},
		func(c kubernetes.Interface) informer.ListWatcher[*appsv1.DeploymentList] {
			return c.AppsV1().Deployments(namespace)
		},
		informer.Options{ObjectDescription: "deployments"})
	_, errRS := informer.InFactory(factory, &appsv1.ReplicaSet{},
		func(c kubernetes.Interface) informer.ListWatcher[*appsv1.ReplicaSetList] {
			return c.AppsV1().ReplicaSets(namespace)
		},
		informer.Options{ObjectDescription: "replicasets"})
	_, errPod := informer.InFactory(factory, &corev1.Pod{},
		func(c kubernetes.Interface) informer.ListWatcher[*corev1.PodList] { return c.CoreV1().Pods(namespace) },
		informer.Options{ObjectDescription: "pods"})
	return errors.Join(errD, errRS, errPod)
}
