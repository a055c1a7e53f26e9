package deployment

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// hashVector is one entry of testdata/hash_vectors.json. The hashes there
// were computed by kube-controller-manager v1.37.2's controller.ComputeHash
// (internal/upstreamcheck writes them with -update and proves them on every
// run), so this test pins PodTemplateHash to upstream without importing
// k8s.io/kubernetes.
type hashVector struct {
	Name           string          `json:"name"`
	CollisionCount *int32          `json:"collisionCount"`
	Template       json.RawMessage `json:"template"`
	Hash           string          `json:"hash"`
}

func TestPodTemplateHashUpstreamVectors(t *testing.T) {
	data, err := os.ReadFile("testdata/hash_vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []hashVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 10 {
		t.Fatalf("only %d vectors in testdata/hash_vectors.json", len(vectors))
	}
	for _, v := range vectors {
		var template corev1.PodTemplateSpec
		if err := json.Unmarshal(v.Template, &template); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		if got := PodTemplateHash(&template, v.CollisionCount); got != v.Hash {
			t.Errorf("%s: PodTemplateHash() = %q, upstream gives %q", v.Name, got, v.Hash)
		}
	}
}

func TestPodTemplateHashProperties(t *testing.T) {
	d := newDeployment("web", 1)
	tpl := &d.Spec.Template

	t.Run("nil template hashes like an empty one", func(t *testing.T) {
		if got, want := PodTemplateHash(nil, nil), PodTemplateHash(&corev1.PodTemplateSpec{}, nil); got != want {
			t.Errorf("PodTemplateHash(nil) = %q, want %q", got, want)
		}
	})
	t.Run("does not modify the template", func(t *testing.T) {
		before := tpl.DeepCopy()
		PodTemplateHash(tpl, ptr.To[int32](3))
		if !equalIgnoreHash(before, tpl) || len(before.Labels) != len(tpl.Labels) {
			t.Error("PodTemplateHash changed its input")
		}
	})
	t.Run("collision count changes the hash", func(t *testing.T) {
		seen := map[string]*int32{}
		for _, cc := range []*int32{nil, ptr.To[int32](0), ptr.To[int32](1), ptr.To[int32](2)} {
			h := PodTemplateHash(tpl, cc)
			if prev, dup := seen[h]; dup {
				t.Errorf("collisionCount %v and %v give the same hash %q", prev, cc, h)
			}
			seen[h] = cc
		}
	})
	t.Run("label value safe", func(t *testing.T) {
		h := PodTemplateHash(tpl, nil)
		if len(h) == 0 || len(h) > 10 {
			t.Fatalf("hash %q: want 1 to 10 characters", h)
		}
		// SafeEncodeString's alphabet: no vowels (no words), no 0, 1, 3.
		if i := strings.IndexFunc(h, func(r rune) bool { return !strings.ContainsRune("bcdfghjklmnpqrstvwxz2456789", r) }); i >= 0 {
			t.Errorf("hash %q has character %q outside the safe alphabet", h, h[i])
		}
	})
}

// BenchmarkPodTemplateHash measures the hash of a one-container template,
// computed on every pass that looks for or creates the new ReplicaSet.
func BenchmarkPodTemplateHash(b *testing.B) {
	tpl := &newDeployment("web", 1).Spec.Template
	for b.Loop() {
		PodTemplateHash(tpl, nil)
	}
}
