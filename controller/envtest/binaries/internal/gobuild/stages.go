package gobuild

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// StageSets are the kwok stage folders used: nodes become Ready at once and
// renew their lease like a kubelet; pods become Ready, complete, and go away
// when deleted.
var StageSets = []string{"node/fast", "node/heartbeat-with-lease", "pod/fast"}

// CopyStages copies the kwok stage files of StageSets from the kwok module
// in kwokDir into dst, one folder per stage set.
func CopyStages(kwokDir, dst string) error {
	for _, set := range StageSets {
		from := filepath.Join(kwokDir, "kustomize", "stage", filepath.FromSlash(set))
		to := filepath.Join(dst, filepath.FromSlash(set))
		if err := os.MkdirAll(to, 0o755); err != nil {
			return err
		}
		entries, err := os.ReadDir(from)
		if err != nil {
			return err
		}
		n := 0
		for _, e := range entries {
			if e.IsDir() || filepath.Ext(e.Name()) != ".yaml" || e.Name() == "kustomization.yaml" {
				continue
			}
			data, err := os.ReadFile(filepath.Join(from, e.Name()))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
				return err
			}
			n++
		}
		if n == 0 {
			return &fs.PathError{Op: "copy stages", Path: from, Err: errors.New("no stage files")}
		}
	}
	return nil
}
