package deployment

import (
	"errors"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// podsByReplicaSet maps the UID of each ReplicaSet in rsList to the pods it
// controls, found through the pod cache's controller index. Every ReplicaSet
// gets an entry, possibly empty. Terminating and finished pods are included:
// a Recreate rollout must know about them.
//
// The pods are the cache's own objects and must not be modified.
func (r *Reconciler) podsByReplicaSet(d *appsv1.Deployment, rsList []*appsv1.ReplicaSet) (map[types.UID][]*corev1.Pod, error) {
	podMap := make(map[types.UID][]*corev1.Pod, len(rsList))
	for _, rs := range rsList {
		pods, err := r.podsControlledBy(rs)
		if err != nil {
			return nil, fmt.Errorf("deployment %s/%s: %w", d.Namespace, d.Name, err)
		}
		podMap[rs.UID] = pods
	}
	return podMap, nil
}

// podsControlledBy returns the pods whose controller reference names rs.
func (r *Reconciler) podsControlledBy(rs *appsv1.ReplicaSet) ([]*corev1.Pod, error) {
	switch {
	case rs.Namespace == "":
		return nil, errors.New("no owner namespace provided")
	case rs.Name == "":
		return nil, errors.New("no owner name provided")
	case rs.UID == "":
		return nil, errors.New("no owner uid provided")
	}
	return podsOfReplicaSet(r.pods, rs)
}
