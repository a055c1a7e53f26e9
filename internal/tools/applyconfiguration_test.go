package tools

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestApplyConfigurationsAreFresh runs each directory's
// applyconfiguration-gen directive again, writing into a temporary
// directory, and fails when the committed apply configurations differ from
// what it writes, or when a committed file is one it no longer writes:
// someone changed a type and did not run go generate.
func TestApplyConfigurationsAreFresh(t *testing.T) {
	for dir := range generatingDirs {
		for _, args := range directives(t, dir, "applyconfiguration-gen") {
			t.Run(filepath.Base(dir), func(t *testing.T) {
				i := slices.Index(args, "--output-dir")
				if i < 0 || i+1 == len(args) {
					t.Fatalf("%s: the applyconfiguration-gen directive has no --output-dir", dir)
				}
				committedDir := filepath.Join(dir, args[i+1])
				out := t.TempDir()
				cmdArgs := slices.Clone(args)
				cmdArgs[i+1] = out
				cmd := exec.Command(cmdArgs[0], cmdArgs[1:]...)
				cmd.Dir = dir
				if output, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s (in %s): %v\n%s", strings.Join(cmdArgs, " "), dir, err, output)
				}
				written := filesUnder(t, out)
				if len(written) == 0 {
					t.Fatalf("applyconfiguration-gen wrote nothing for %s", dir)
				}
				for _, name := range written {
					want, err := os.ReadFile(filepath.Join(out, name))
					if err != nil {
						t.Fatal(err)
					}
					got, err := os.ReadFile(filepath.Join(committedDir, name))
					if err != nil {
						t.Errorf("%v: run go generate in %s", err, dir)
						continue
					}
					if !bytes.Equal(got, want) {
						t.Errorf("%s is stale (%s): run go generate in %s", filepath.Join(committedDir, name), firstDifference(got, want), dir)
					}
				}
				for _, name := range filesUnder(t, committedDir) {
					if !slices.Contains(written, name) {
						t.Errorf("%s is no longer generated: delete it", filepath.Join(committedDir, name))
					}
				}
			})
		}
	}
}

// filesUnder returns the paths, relative to dir, of the files under dir.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		names = append(names, rel)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}
