package controller

import "time"

// Gate admits keys before they are reconciled (Options.Gate). Package
// controller/sharding's gates admit only the keys of this replica's shard,
// so that replicas of one controller split its keys.
//
// A controller calls Admit once per key it takes from the queue, from any
// worker. If ok, it reconciles the key and then calls release, exactly
// once, when the reconcile has returned (before the key is handed back,
// even if it is held for its caches). If not, it adds the key again after
// retryAfter or, if retryAfter is zero, drops it (forgets its failures):
// someone else reconciles it.
type Gate[K comparable] interface {
	Admit(key K) (release func(), retryAfter time.Duration, ok bool)
}
