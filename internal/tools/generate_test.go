package tools

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// generatingDirs are the directories whose //go:generate line runs
// controller-gen, each with the files it must write (relative to the
// directory): a generator dropped from the directive fails the test
// instead of leaving its committed output unchecked.
var generatingDirs = map[string][]string{
	"../../examples/crd-operator": {
		"api/v1/zz_generated.deepcopy.go", "api/v1alpha1/zz_generated.deepcopy.go",
		"manifests/example.ctrlkit.dev_webapps.yaml", "manifests/role.yaml", "manifests/webhook/manifests.yaml",
	},
	"../operatoruser": {"api/v1/zz_generated.deepcopy.go", "config/crd/example.com_greetings.yaml", "config/rbac/role.yaml"},
}

// TestGeneratedFilesAreFresh runs each directory's controller-gen
// directive again, and its post-step if it has one, writing into a
// temporary directory that mirrors it, and fails when a committed file
// (deep copies, CRD, RBAC role, webhook configurations) differs from what
// they write: someone changed a marker or a type and did not run go
// generate.
func TestGeneratedFilesAreFresh(t *testing.T) {
	for dir, wantFiles := range generatingDirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			args := controllerGenDirective(t, dir)
			out := t.TempDir()
			var cmdArgs []string
			var object string
			for _, a := range args {
				switch {
				case a == "object" || strings.HasPrefix(a, "object:"):
					object = a
				case strings.HasPrefix(a, "output:"):
					// output:crd:dir=manifests writes to out/manifests.
					if key, d, ok := strings.Cut(a, ":dir="); ok {
						cmdArgs = append(cmdArgs, key+":dir="+filepath.Join(out, d))
					}
				default:
					cmdArgs = append(cmdArgs, a)
				}
			}
			run(t, dir, cmdArgs)
			if object != "" {
				// The deep copies are written next to each package's
				// types; one run per package puts each in its own place
				// under out.
				for _, pkg := range packageDirs(t, dir) {
					run(t, dir, append(slices.Clone(cmdArgs[:slices.Index(cmdArgs, "controller-gen")+1]),
						object, "paths=./"+pkg, "output:object:dir="+filepath.Join(out, pkg)))
				}
			}
			for _, post := range directives(t, dir, postStep) {
				run(t, dir, inDir(post, out))
			}
			written := filesUnder(t, out)
			if !slices.Equal(written, wantFiles) {
				t.Fatalf("the generators wrote %v for %s, want %v", written, dir, wantFiles)
			}
			for _, name := range written {
				want, err := os.ReadFile(filepath.Join(out, name))
				if err != nil {
					t.Fatal(err)
				}
				committed := filepath.Join(dir, name)
				got, err := os.ReadFile(committed)
				if err != nil {
					t.Errorf("%v: run go generate in %s", err, dir)
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s is stale (%s): run go generate in %s", committed, firstDifference(got, want), dir)
				}
			}
		})
	}
}

// packageDirs are the directories of the Go packages under dir, relative
// to it.
func packageDirs(t *testing.T, dir string) []string {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-f", "{{.Dir}}", "./...")
	cmd.Dir = dir
	output, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... (in %s): %v", dir, err)
	}
	var rels []string
	for _, d := range strings.Fields(string(output)) {
		rel, err := filepath.Rel(abs, d)
		if err != nil {
			t.Fatal(err)
		}
		rels = append(rels, rel)
	}
	return rels
}

// postStep is the program a directory's //go:generate line may run after
// controller-gen to add what it has no marker for (the CRD's conversion
// webhook settings in examples/crd-operator); the check runs it on the
// fresh output too.
const postStep = "./internal/crdconversion"

// run runs args in dir, failing t with the output if it fails.
func run(t *testing.T, dir string, args []string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s (in %s): %v\n%s", strings.Join(args, " "), dir, err, output)
	}
}

// inDir is args with each YAML file argument moved under dir.
func inDir(args []string, dir string) []string {
	args = slices.Clone(args)
	for i, a := range args {
		if strings.HasSuffix(a, ".yaml") && !strings.HasPrefix(a, "-") {
			args[i] = filepath.Join(dir, a)
		}
	}
	return args
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
