package deployment

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
)

// PodControllerIndexName names the pod informer index built by
// PodControllerIndex. It and the key format are kube-controller-manager's, so
// an informer that already carries upstream's index can be shared.
const PodControllerIndexName = "podController"

// PodControllerIndex is a cache.IndexFunc that files a pod under its
// controller reference: "<namespace>/<kind>/<name>/<uid>", or under
// "<namespace>" alone when it has no controller. Every pod is indexed,
// terminating and finished ones included. Objects that are not pods are not
// indexed.
func PodControllerIndex(obj any) ([]string, error) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil, nil
	}
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return []string{pod.Namespace}, nil
	}
	return []string{PodControllerIndexKey(pod.Namespace, ref.Kind, ref.Name, ref.UID)}, nil
}

// PodControllerIndexKey is the PodControllerIndex key of the pods controlled
// by the object of the given kind, name and UID in namespace.
func PodControllerIndexKey(namespace, kind, name string, uid types.UID) string {
	return namespace + "/" + kind + "/" + name + "/" + string(uid)
}

// replicaSetPodsKey is the PodControllerIndex key of rs's pods.
func replicaSetPodsKey(rs *appsv1.ReplicaSet) string {
	return PodControllerIndexKey(rs.Namespace, "ReplicaSet", rs.Name, rs.UID)
}

// AddPodControllerIndex adds PodControllerIndex to a pod informer under
// PodControllerIndexName, unless an index of that name is already there. It
// must be called before the informer starts.
func AddPodControllerIndex(podInformer cache.SharedIndexInformer) error {
	return addIndex(podInformer, PodControllerIndexName, PodControllerIndex)
}

// addIndex adds index to informer under name, unless an index of that name
// is already there (an informer shared with upstream's controllers, or
// passed twice).
func addIndex(informer cache.SharedIndexInformer, name string, index cache.IndexFunc) error {
	if _, exists := informer.GetIndexer().GetIndexers()[name]; exists {
		return nil
	}
	if err := informer.AddIndexers(cache.Indexers{name: index}); err != nil {
		return fmt.Errorf("adding the %q index: %w", name, err)
	}
	return nil
}

// podsOfReplicaSet lists the pods rs controls from an indexer carrying
// PodControllerIndex. The pods are the cache's: do not modify them.
func podsOfReplicaSet(indexer cache.Indexer, rs *appsv1.ReplicaSet) ([]*corev1.Pod, error) {
	objs, err := indexer.ByIndex(PodControllerIndexName, replicaSetPodsKey(rs))
	if err != nil {
		return nil, err
	}
	pods := make([]*corev1.Pod, 0, len(objs))
	for _, obj := range objs {
		if pod, ok := obj.(*corev1.Pod); ok {
			pods = append(pods, pod)
		}
	}
	return pods, nil
}
