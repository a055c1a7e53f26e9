package binaries

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// The build module: a go.mod that pins etcd, Kubernetes and kwok and lists
// their programs as tools, and its go.sum. They are embedded because a
// user's module gets ctrlkit from the module cache, where no nested module
// (internal/cpbuild, where the pins are edited) exists; the files carry a
// .txt suffix because a file named go.mod would start a module of its own.
// TestEmbeddedBuildModuleMatchesCPBuild keeps them equal to internal/cpbuild.
//
//go:generate cp ../../../internal/cpbuild/go.mod buildmodule/go.mod.txt
//go:generate cp ../../../internal/cpbuild/go.sum buildmodule/go.sum.txt
var (
	//go:embed buildmodule/go.mod.txt
	buildGoMod []byte
	//go:embed buildmodule/go.sum.txt
	buildGoSum []byte
)

// recipeVersion changes whenever the way binaries are built or laid out
// changes, so that old caches are not reused with a new layout.
const recipeVersion = "ctrlkit-cpbuild-1"

// cacheKey names a set of binaries: it changes when a pinned version (go.mod,
// go.sum), the build recipe or the target platform changes.
func cacheKey(goMod, goSum []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\n%s/%s\n", recipeVersion, runtime.GOOS, runtime.GOARCH)
	for _, f := range []struct {
		name string
		data []byte
	}{{"go.mod", goMod}, {"go.sum", goSum}} {
		fmt.Fprintf(h, "%s %d\n", f.name, len(f.data))
		h.Write(f.data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// writeBuildModule writes the build module into dir, where the go command
// then builds the programs.
func writeBuildModule(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), buildGoMod, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "go.sum"), buildGoSum, 0o644)
}
