package binaries

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// manifestName is the file in a cache directory that records the versions
// of the modules whose programs it holds.
const manifestName = "manifest.json"

type manifest struct {
	Versions  map[string]string `json:"versions"`
	GoVersion string            `json:"goVersion"`
	Built     time.Time         `json:"built"`
}

// loadBinaries reads a cache directory that holds every program in need
// (and the kwok stages if kwok is among them).
func loadBinaries(dir string, need []program) (*Set, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	b := &Set{Dir: dir, Versions: m.Versions}
	for _, p := range need {
		if _, err := os.Stat(b.Path(p.name)); err != nil {
			return nil, err
		}
		if b.Versions[p.module] == "" {
			return nil, fmt.Errorf("%s: no version of %s", filepath.Join(dir, manifestName), p.module)
		}
		if p.module == kwokModule {
			if _, err := os.Stat(b.StagesDir()); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func readManifest(dir string) (manifest, error) {
	var m manifest
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("%s: %w", filepath.Join(dir, manifestName), err)
	}
	return m, nil
}

// writeManifest replaces dir's manifest in one rename.
func writeManifest(dir string, m manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, "."+manifestName+".partial")
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, manifestName))
}
