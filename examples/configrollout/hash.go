package configrollout

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"maps"
	"slices"
)

// Content is what the controller read for one [Ref]: the object's data, or
// that it does not exist.
type Content struct {
	// Ref is the object read.
	Ref Ref
	// Found is false when the object does not exist.
	Found bool
	// Data holds every key of the object: for a ConfigMap, Data and
	// BinaryData together (the API server keeps their keys disjoint); for a
	// Secret, Data.
	Data map[string][]byte
}

// Hash returns a digest of the contents: 32 hexadecimal characters that
// change whenever any referenced object's keys or values change, appears or
// disappears. Only data counts: labels, annotations and other metadata do
// not restart pods. The order of contents does not matter.
//
// The digest is unkeyed SHA-256, truncated. It is stored on the pod
// template, which anyone who can read the Deployment can see; a Secret
// whose values are guessable (a short PIN, say) can be confirmed from it.
// Controllers that follow such Secrets should mix in a key of their own.
func Hash(contents []Content) string {
	sorted := slices.SortedFunc(slices.Values(contents), func(a, b Content) int {
		return compareRefs(a.Ref, b.Ref)
	})
	h := sha256.New()
	for _, c := range sorted {
		writeField(h, []byte(c.Ref.Kind))
		writeField(h, []byte(c.Ref.Name))
		if !c.Found {
			writeField(h, []byte("absent"))
			continue
		}
		writeField(h, []byte("present"))
		keys := slices.Sorted(maps.Keys(c.Data))
		writeLength(h, len(keys))
		for _, k := range keys {
			writeField(h, []byte(k))
			writeField(h, c.Data[k])
		}
	}
	sum := h.Sum(nil)
	return hex.EncodeToString(sum[:16])
}

// writeField writes a length-prefixed field, so that no two different
// sequences of fields produce the same bytes ("ab"+"c" vs "a"+"bc").
func writeField(h hash.Hash, b []byte) {
	writeLength(h, len(b))
	h.Write(b)
}

func writeLength(h hash.Hash, n int) {
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], uint64(n))
	h.Write(buf[:])
}
