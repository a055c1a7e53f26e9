package binaries

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctrlkit/ctrlkit/controller/envtest/binaries/internal/filelock"
)

// Ensure returns the programs that opts asks for (etcd and kube-apiserver;
// see Options.Full and Options.Kubectl). Programs come first from the
// assets directory (Options.BinaryAssetsDirectory, else
// $KUBEBUILDER_ASSETS), each checked with --version against the pinned
// version (Options.VersionMismatch says what a different one does); then
// from the binary cache; then, unless downloads are off (Options.NoDownload,
// DownloadEnv), from official releases, each file's published digest
// checked before it is used or cached; and last the cache builds the
// missing ones with the go command from the embedded build module, all in
// one go build. Where the programs come from, why a download failed, and a
// build's progress go to opts.Log. Concurrent callers, in this process or
// others, wait for a single build.
func Ensure(ctx context.Context, opts Options) (*Set, error) {
	log := opts.log()
	need := opts.programs()
	pinned := pinnedVersions(buildGoMod)
	found := assets{paths: map[string]string{}, versions: map[string]string{}}
	srcDir := ""
	if dir := opts.assetsDir(); dir != "" {
		var a assets
		a, need = findAssets(ctx, dir, need, pinned, opts.VersionMismatch, log)
		found.add(a)
		srcDir = dir
		if len(a.paths) > 0 {
			fmt.Fprintf(log, "envtest: using %s from %s (%s)\n", strings.Join(sortedNames(a.paths), ", "), dir, opts.assetsSource())
		}
	}
	if len(need) == 0 {
		return found.binaries(srcDir, nil), nil
	}
	base := opts.CacheDir
	if base == "" {
		var err error
		if base, err = CacheDir(); err != nil {
			return nil, err
		}
	}
	cacheDir := filepath.Join(base, cacheKey(buildGoMod, buildGoSum))
	if b, err := loadBinaries(cacheDir, need); err == nil {
		return found.binaries(srcDir, b), nil
	}
	if opts.downloadsOn() {
		var a assets
		var dl string
		a, dl, need = fromReleases(ctx, opts, base, pinned, need, log)
		found.add(a)
		if srcDir == "" {
			srcDir = dl
		}
		if len(need) == 0 {
			return found.binaries(srcDir, nil), nil
		}
	}
	b, err := cachedBinaries(ctx, opts, cacheDir, need, opts.assetsDir() == "")
	if err != nil {
		return nil, err
	}
	return found.binaries(srcDir, b), nil
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// cachedBinaries returns the programs of need from the binary cache dir,
// building the missing ones under a file lock. noAssets says that no
// assets directory was given, which the build's first line then suggests.
func cachedBinaries(ctx context.Context, opts Options, dir string, need []program, noAssets bool) (*Set, error) {
	log := opts.log()
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	unlock, err := filelock.Lock(ctx, dir+".lock", func() {
		fmt.Fprintf(log, "envtest: another process is building the binaries; waiting for lock %s\n", dir+".lock")
	})
	if err != nil {
		return nil, fmt.Errorf("lock the binary cache: %w", err)
	}
	defer unlock()
	if b, err := loadBinaries(dir, need); err == nil {
		return b, nil // built by whoever held the lock
	}
	if noAssets {
		fmt.Fprintf(log, "envtest: no ready-made binaries for %s (set %s or Options.BinaryAssetsDirectory to a directory of them, as setup-envtest makes)\n", names(need), AssetsEnv)
	}
	build := opts.build
	if build == nil {
		build = buildInto
	}
	return build(ctx, dir, need, log)
}
