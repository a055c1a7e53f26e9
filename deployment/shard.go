package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/ctrlkit/ctrlkit/controller/sharding"
)

// shardInformers registers in factory the Deployment, ReplicaSet and Pod
// informers NewController uses, each listing and watching only the
// namespaces of ring's range. It must run before anything asks factory
// for those informers, or the factory keeps its unsharded ones.
func shardInformers(client kubernetes.Interface, factory informers.SharedInformerFactory, ring *sharding.Ring) {
	sharding.Informer(factory, &appsv1.Deployment{},
		sharding.FromClient[*appsv1.DeploymentList](client.AppsV1().Deployments(metav1.NamespaceAll)), ring, sharding.Namespaced)
	sharding.Informer(factory, &appsv1.ReplicaSet{},
		sharding.FromClient[*appsv1.ReplicaSetList](client.AppsV1().ReplicaSets(metav1.NamespaceAll)), ring, sharding.Namespaced)
	sharding.Informer(factory, &corev1.Pod{},
		sharding.FromClient[*corev1.PodList](client.CoreV1().Pods(metav1.NamespaceAll)), ring, sharding.Namespaced)
}
