package envtest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const testCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %s.example.com
spec: {}
`

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func crd(name string) string { return strings.Replace(testCRD, "%s", name, 1) }

func TestReadCRDsFromFilesAndDirectories(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "crds", "b.yaml"), crd("bs")+"---\n"+crd("cs"))
	writeFile(t, filepath.Join(dir, "crds", "a.yml"), crd("as"))
	writeFile(t, filepath.Join(dir, "crds", "README.md"), "not a CRD")
	writeFile(t, filepath.Join(dir, "crds", "sub", "ignored.yaml"), crd("ignored"))
	writeFile(t, filepath.Join(dir, "d.yaml"), "---\n"+crd("ds")+"---\n")

	crds, err := readCRDs([]string{filepath.Join(dir, "crds"), filepath.Join(dir, "d.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range crds {
		names = append(names, c.GetName())
	}
	if got, want := strings.Join(names, " "), "as.example.com bs.example.com cs.example.com ds.example.com"; got != want {
		t.Errorf("read %q, want %q", got, want)
	}
}

func TestReadCRDsRejectsOtherKindsAndMissingPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
	for _, path := range []string{filepath.Join(dir, "cm.yaml"), filepath.Join(dir, "nope.yaml")} {
		if _, err := readCRDs([]string{path}); err == nil {
			t.Errorf("readCRDs(%s) succeeded, want an error", filepath.Base(path))
		}
	}
}

func TestCRDEstablishedNeedsBothConditions(t *testing.T) {
	withConditions := func(conds ...map[string]any) *unstructured.Unstructured {
		list := make([]any, len(conds))
		for i, c := range conds {
			list[i] = c
		}
		return &unstructured.Unstructured{Object: map[string]any{
			"metadata": map[string]any{"name": "xs.example.com"},
			"status":   map[string]any{"conditions": list},
		}}
	}
	cond := func(typ, status string) map[string]any {
		return map[string]any{"type": typ, "status": status, "message": "m"}
	}
	if err := crdEstablished(withConditions(cond("NamesAccepted", "True"), cond("Established", "True"))); err != nil {
		t.Errorf("established CRD: %v", err)
	}
	for name, c := range map[string]*unstructured.Unstructured{
		"no status":      withConditions(),
		"not served yet": withConditions(cond("NamesAccepted", "True"), cond("Established", "False")),
		"name conflict":  withConditions(cond("NamesAccepted", "False"), cond("Established", "False")),
	} {
		err := crdEstablished(c)
		if err == nil {
			t.Errorf("%s: established, want not", name)
		}
		// Only a name conflict is final: the start fails at once on it.
		if permanent := errors.As(err, new(permanentError)); permanent != (name == "name conflict") {
			t.Errorf("%s: permanent = %v (%v)", name, permanent, err)
		}
	}
}
