package tools

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// generatingDirs are the directories whose //go:generate line runs
// controller-gen, each with the files it must write: a generator dropped
// from the directive fails the test instead of leaving its committed
// output unchecked.
var generatingDirs = map[string][]string{
	"../../examples/crd-operator": {"example.ctrlkit.dev_webapps.yaml", "manifests.yaml", "role.yaml", "zz_generated.deepcopy.go"},
	"../operatoruser":             {"example.com_greetings.yaml", "role.yaml", "zz_generated.deepcopy.go"},
}

// TestGeneratedFilesAreFresh runs each directory's controller-gen
// directive again, writing into a temporary directory, and fails when a
// committed file (deep copies, CRD, RBAC role, webhook configurations)
// differs from what it writes: someone changed a marker or a type and did
// not run go generate.
func TestGeneratedFilesAreFresh(t *testing.T) {
	for dir, wantFiles := range generatingDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			args := controllerGenDirective(t, dir)
			out := t.TempDir()
			var cmdArgs []string
			for _, a := range args {
				if !strings.HasPrefix(a, "output:") {
					cmdArgs = append(cmdArgs, a)
				}
			}
			cmdArgs = append(cmdArgs, "output:dir="+out)
			cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
			cmd.Dir = dir
			if output, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s (in %s): %v\n%s", strings.Join(cmdArgs, " "), dir, err, output)
			}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			var written []string
			for _, e := range entries {
				written = append(written, e.Name())
			}
			if !slices.Equal(written, wantFiles) {
				t.Fatalf("controller-gen wrote %v for %s, want %v", written, dir, wantFiles)
			}
			for _, e := range entries {
				want, err := os.ReadFile(filepath.Join(out, e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				committed := findCommitted(t, dir, e.Name())
				got, err := os.ReadFile(committed)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s is stale (%s): run go generate in %s", committed, firstDifference(got, want), dir)
				}
			}
		})
	}
}

// controllerGenDirective returns the words of the one //go:generate line
// in dir's Go files that runs controller-gen.
func controllerGenDirective(t *testing.T, dir string) []string {
	t.Helper()
	found := directives(t, dir, "controller-gen")
	if len(found) != 1 {
		t.Fatalf("%s: want one //go:generate line running controller-gen, found %d", dir, len(found))
	}
	return found[0]
}

// directives returns the words of the //go:generate lines in dir's Go
// files that run tool. The directives are written without quotes, so
// splitting on spaces is exact.
func directives(t *testing.T, dir, tool string) [][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var found [][]string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if line, ok := strings.CutPrefix(sc.Text(), "//go:generate "); ok && slices.Contains(strings.Fields(line), tool) {
				found = append(found, strings.Fields(line))
			}
		}
	}
	return found
}

// findCommitted returns the one file named name under dir.
func findCommitted(t *testing.T, dir, name string) string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == name {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 1 {
		t.Fatalf("want one committed %s under %s, found %v: run go generate in %s", name, dir, paths, dir)
	}
	return paths[0]
}

// firstDifference describes the first line where got and want differ.
func firstDifference(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d is %q, the generator writes %q", i+1, gl, wl)
		}
	}
	return "same lines, different bytes"
}
