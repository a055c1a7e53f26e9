package ring_test

import (
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubesharding "k8s.io/apimachinery/pkg/sharding"

	"github.com/ctrlkit/ctrlkit/controller/sharding/internal/ring"
)

// The hash of a namespaced object is the API server's: the range that
// contains it is the range whose selector matches it.
func TestKeyHashAgreesWithAPIMachinery(t *testing.T) {
	for n := 1; n <= 7; n++ {
		ranges := ring.Assign(n)
		for i := range 200 {
			ns := fmt.Sprintf("namespace-%d", i)
			obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "x"}}
			h := ring.KeyHash(ns, "x")
			if want, _ := strconv.ParseUint(kubesharding.HashField(ns), 16, 64); h != want {
				t.Fatalf("KeyHash(%q) = %#x, apimachinery's HashField = %#x", ns, h, want)
			}
			for j, r := range ranges {
				matches, err := r.Selector(ring.NamespaceField).Matches(obj)
				if err != nil {
					t.Fatal(err)
				}
				if matches != r.Contains(h) {
					t.Errorf("n=%d: namespace %q (hash %#x): range %d %v contains it: %v, its selector matches: %v",
						n, ns, h, j, r, r.Contains(h), matches)
				}
			}
		}
	}
}

func TestKeyHashOfClusterScopedIsByName(t *testing.T) {
	want, _ := strconv.ParseUint(kubesharding.HashField("node-1"), 16, 64)
	if got := ring.KeyHash("", "node-1"); got != want {
		t.Errorf("KeyHash of cluster-scoped node-1 = %#x, want the hash of its name %#x", got, want)
	}
	obj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	if got, err := ring.ObjectHash(obj); err != nil || got != want {
		t.Errorf("ObjectHash(node-1) = %#x, %v; want %#x", got, err, want)
	}
	if ring.KeyHash("ns", "a") != ring.KeyHash("ns", "b") {
		t.Error("two objects of one namespace hash apart")
	}
}
