package binaries

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/gobuild"
)

// buildInto compiles the programs of need that the cache directory dir
// lacks, from the build module, in one go build. Each program (and the
// stage folder) is written under a temporary name and renamed into place,
// so a half-finished build is never mistaken for a cache hit, and the
// manifest is updated after the programs it describes exist.
func buildInto(ctx context.Context, dir string, need []program, log io.Writer) (*Set, error) {
	start := time.Now()
	src := filepath.Join(dir, "buildmodule")
	if err := writeBuildModule(src); err != nil {
		return nil, err
	}
	old, _ := readManifest(dir) // none yet on a first build
	versions := map[string]string{}
	for path, v := range old.Versions {
		versions[path] = v
	}
	var missing []program
	var modules []string
	for _, p := range need {
		if _, err := os.Stat(filepath.Join(dir, gobuild.ExeName(p.name))); err != nil || versions[p.module] == "" {
			missing = append(missing, p)
		}
		if !slices.Contains(modules, p.module) {
			modules = append(modules, p.module)
		}
	}
	gocmd, err := gobuild.Command()
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "envtest: building %s from the Go module proxy into %s, in one go build; later runs reuse it\n", names(missing), dir)
	fmt.Fprintln(log, "envtest: a cold build takes minutes; its progress follows every 30s")

	mods, err := gobuild.Modules(ctx, gocmd, src, modules...)
	if err != nil {
		return nil, err
	}
	for path, m := range mods {
		versions[path] = m.Version
	}
	if k, ok := mods[kwokModule]; ok {
		if err := copyStagesOnce(k.Dir, dir); err != nil {
			return nil, err
		}
	}
	if len(missing) > 0 {
		progs := make([]gobuild.Program, len(missing))
		for i, p := range missing {
			progs[i] = gobuild.Program{Name: p.name, Pkg: p.pkg}
		}
		if err := gobuild.Build(ctx, gocmd, src, dir, progs, gobuild.VersionLDFlags(versions[kubernetesModule]), log); err != nil {
			return nil, err
		}
	}
	if err := writeManifest(dir, manifest{Versions: versions, GoVersion: runtime.Version(), Built: time.Now().UTC()}); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "envtest: build finished in %s\n", time.Since(start).Round(time.Second))
	return loadBinaries(dir, need)
}

// copyStagesOnce copies kwok's stages from the kwok module into dir/stages
// unless they are there, renaming a complete copy into place.
func copyStagesOnce(kwokDir, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "stages")); err == nil {
		return nil
	}
	tmp, err := os.MkdirTemp(dir, ".stages-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	if err := gobuild.CopyStages(kwokDir, tmp); err != nil {
		return fmt.Errorf("copy kwok stages: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, "stages"))
}
