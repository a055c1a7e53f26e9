package upstreamcheck

import (
	"encoding/json"
	"flag"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/kubernetes/pkg/controller"
)

// vectorsFile holds pod templates with their upstream hashes; package
// deployment's own tests check PodTemplateHash against it without depending
// on k8s.io/kubernetes.
const vectorsFile = "../../deployment/testdata/hash_vectors.json"

var update = flag.Bool("update", false, "rewrite the hash column of "+vectorsFile+" from upstream's ComputeHash")

type hashVector struct {
	Name           string          `json:"name"`
	CollisionCount *int32          `json:"collisionCount"`
	Template       json.RawMessage `json:"template"` // kept verbatim: re-encoding would drop empty maps

	Hash string `json:"hash"`
}

// TestRecordedVectorsAreUpstreams proves the recorded hashes are what
// kube-controller-manager computes (or records them, with -update).
func TestRecordedVectorsAreUpstreams(t *testing.T) {
	data, err := os.ReadFile(vectorsFile)
	if err != nil {
		t.Fatal(err)
	}
	var vectors []hashVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) == 0 {
		t.Fatal("no vectors")
	}
	for i := range vectors {
		v := &vectors[i]
		var template corev1.PodTemplateSpec
		if err := json.Unmarshal(v.Template, &template); err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		want := controller.ComputeHash(&template, v.CollisionCount)
		if *update {
			v.Hash = want
			continue
		}
		if v.Hash != want {
			t.Errorf("%s: recorded hash %q, upstream ComputeHash gives %q", v.Name, v.Hash, want)
		}
	}
	if *update {
		out, err := json.MarshalIndent(vectors, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(vectorsFile, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded %d vectors", len(vectors))
	}
}
