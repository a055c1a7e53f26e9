package deployment

import (
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/tools/cache"
)

// ReplicaSetControllerIndexName names the ReplicaSet informer index built by
// ReplicaSetControllerIndex.
const ReplicaSetControllerIndexName = "replicaSetController"

// ReplicaSetControllerIndex is a cache.IndexFunc that files a ReplicaSet
// under "<namespace>/<controller UID>", or under "<namespace>" alone when it
// has no controller. A Deployment's pass then reads the ReplicaSets it
// controls and the namespace's orphans, the only ones it can keep, release
// or adopt, instead of every ReplicaSet of the namespace. Objects that are
// not ReplicaSets are not indexed.
func ReplicaSetControllerIndex(obj any) ([]string, error) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return nil, nil
	}
	if ref := metav1.GetControllerOfNoCopy(rs); ref != nil {
		return []string{rs.Namespace + "/" + string(ref.UID)}, nil
	}
	return []string{rs.Namespace}, nil
}

// AddReplicaSetControllerIndex adds ReplicaSetControllerIndex to a
// ReplicaSet informer under ReplicaSetControllerIndexName, unless an index of
// that name is already there. It must be called before the informer starts.
func AddReplicaSetControllerIndex(rsInformer cache.SharedIndexInformer) error {
	return addIndex(rsInformer, ReplicaSetControllerIndexName, ReplicaSetControllerIndex)
}

// claimCandidates returns the ReplicaSets of d's namespace whose ownership a
// pass of d can settle: all of them without an index, as upstream reads
// them; with one, those d controls and the orphans. The others are another
// controller's, which claiming leaves alone either way. The ReplicaSets are
// the cache's: do not modify them.
func (r *Reconciler) claimCandidates(d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	if r.replicaSetIndex == nil {
		return r.replicaSets.ReplicaSets(d.Namespace).List(labels.Everything())
	}
	var rss []*appsv1.ReplicaSet
	for _, key := range []string{d.Namespace + "/" + string(d.UID), d.Namespace} {
		objs, err := r.replicaSetIndex.ByIndex(ReplicaSetControllerIndexName, key)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			if rs, ok := obj.(*appsv1.ReplicaSet); ok {
				rss = append(rss, rs)
			}
		}
	}
	return rss, nil
}
