package deployment

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/dump"
)

// PodTemplateHash returns the value of the pod-template-hash label that
// kube-controller-manager gives the ReplicaSet of template, byte for byte.
//
// Names of existing ReplicaSets are derived from this value, so any drift
// from upstream would make the controller create a second ReplicaSet (and
// restart every pod) after switching between upstream's controller and this
// one. That is why the recipe is fixed: FNV-32a over the template value
// printed by k8s.io/utils/dump.ForHash, then, when collisionCount is set, its
// value as 4 little-endian bytes followed by 4 zero bytes; the 32-bit sum in
// decimal is finally passed through rand.SafeEncodeString.
//
// A nil template hashes like an empty one.
func PodTemplateHash(template *corev1.PodTemplateSpec, collisionCount *int32) string {
	var value corev1.PodTemplateSpec
	if template != nil {
		value = *template
	}
	hasher := fnv.New32a()
	// The value, not the pointer: dump prints the two differently.
	fmt.Fprintf(hasher, "%v", dump.ForHash(value))
	if collisionCount != nil {
		var suffix [8]byte
		binary.LittleEndian.PutUint32(suffix[:4], uint32(*collisionCount))
		hasher.Write(suffix[:])
	}
	return rand.SafeEncodeString(strconv.FormatUint(uint64(hasher.Sum32()), 10))
}
