package deployment

import (
	"sort"

	appsv1 "k8s.io/api/apps/v1"
)

// The orders in which the controller visits ReplicaSets. Each sorts with
// sort.Sort, the algorithm upstream sorts with, over the same "less", and
// the callers hand it the list in the order upstream does (creation order,
// or newest first once a scale has looked for the one active ReplicaSet).
//
// For the orders by creation and by size that choice cannot change a result:
// they are total orders, since names are unique in a namespace, and any sort
// gives the one sorted list. The order by revision is not: it falls back to
// creation time whenever either revision does not parse, so with parsed and
// unparsable revisions mixed it is not transitive, and its result is what the
// algorithm makes of the input order. sort.Sort runs an insertion sort up to
// 12 elements and pattern-defeating quicksort beyond; a stable sort can give
// other results from 13 elements on, and so would delete other ReplicaSets
// when cleaning up history. (sort.Sort has sorted this way since Go 1.19;
// kube-controller-manager v1.37 and this module are built with later ones.)

// replicaSetOrder sorts a list of ReplicaSets under less with sort.Sort.
type replicaSetOrder struct {
	rss  []*appsv1.ReplicaSet
	less func(a, b *appsv1.ReplicaSet) bool
}

func (o replicaSetOrder) Len() int           { return len(o.rss) }
func (o replicaSetOrder) Swap(i, j int)      { o.rss[i], o.rss[j] = o.rss[j], o.rss[i] }
func (o replicaSetOrder) Less(i, j int) bool { return o.less(o.rss[i], o.rss[j]) }

func sortReplicaSets(rss []*appsv1.ReplicaSet, less func(a, b *appsv1.ReplicaSet) bool) {
	sort.Sort(replicaSetOrder{rss: rss, less: less})
}

// createdBefore orders ReplicaSets oldest first, by name on equal creation
// times (creation times have a one-second resolution).
func createdBefore(a, b *appsv1.ReplicaSet) bool {
	if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.Name < b.Name
	}
	return a.CreationTimestamp.Before(&b.CreationTimestamp)
}

// sortByCreation sorts rss oldest first (creation time, then name).
func sortByCreation(rss []*appsv1.ReplicaSet) {
	sortReplicaSets(rss, createdBefore)
}

// sortNewestFirst sorts rss newest first: sortByCreation reversed.
func sortNewestFirst(rss []*appsv1.ReplicaSet) {
	sortReplicaSets(rss, func(a, b *appsv1.ReplicaSet) bool { return createdBefore(b, a) })
}

// sortBySizeOlderFirst sorts rss largest first, older first among equals:
// the order for scaling down proportionally.
func sortBySizeOlderFirst(rss []*appsv1.ReplicaSet) {
	sortReplicaSets(rss, func(a, b *appsv1.ReplicaSet) bool {
		if sa, sb := rsSpecReplicas(a), rsSpecReplicas(b); sa != sb {
			return sa > sb
		}
		return createdBefore(a, b)
	})
}

// sortBySizeNewerFirst sorts rss largest first, newer first among equals:
// the order for scaling up proportionally.
func sortBySizeNewerFirst(rss []*appsv1.ReplicaSet) {
	sortReplicaSets(rss, func(a, b *appsv1.ReplicaSet) bool {
		if sa, sb := rsSpecReplicas(a), rsSpecReplicas(b); sa != sb {
			return sa > sb
		}
		return createdBefore(b, a)
	})
}

// sortByRevision sorts rss by revision, oldest first; equal revisions, and
// any pair where either revision does not parse, go by creation time, then
// name. See above for why the result depends on the input order.
func sortByRevision(rss []*appsv1.ReplicaSet) {
	sortReplicaSets(rss, func(a, b *appsv1.ReplicaSet) bool {
		ra, errA := Revision(a)
		rb, errB := Revision(b)
		if errA != nil || errB != nil || ra == rb {
			return createdBefore(a, b)
		}
		return ra < rb
	})
}
