package ring

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/api/meta"
	kubesharding "k8s.io/apimachinery/pkg/sharding"
)

// NamespaceField is the field path a namespaced object's shard is chosen
// by, in the syntax of ListOptions.ShardSelector.
const NamespaceField = "object.metadata.namespace"

// KeyHash is the point of the 64-bit hash space that an object with this
// namespace and name belongs to: the FNV-1a hash of its namespace, or of
// its name if it is cluster-scoped (namespace ""). It is the hash the API
// server computes for shardRange(object.metadata.namespace, ...), taken
// from k8s.io/apimachinery/pkg/sharding, so that a namespaced object lands
// in the same range on both sides.
//
// Hashing by namespace keeps an object and everything it owns in one
// shard (a Deployment, its ReplicaSets, its Pods), so that one replica
// sees a whole family; the price is that a namespace is never split.
func KeyHash(namespace, name string) uint64 {
	value := namespace
	if namespace == "" {
		value = name
	}
	h, err := strconv.ParseUint(kubesharding.HashField(value), 16, 64)
	if err != nil {
		// HashField formats a uint64 as 16 hex digits: it always parses.
		panic(fmt.Sprintf("sharding: unexpected hash %q: %v", kubesharding.HashField(value), err))
	}
	return h
}

// ObjectHash is KeyHash of obj's namespace and name. obj may be a
// cache.DeletedFinalStateUnknown tombstone's object or anything with
// ObjectMeta.
func ObjectHash(obj any) (uint64, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return 0, fmt.Errorf("sharding: %w", err)
	}
	return KeyHash(m.GetNamespace(), m.GetName()), nil
}
